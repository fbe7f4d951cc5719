import { Column, DataType, Model, Table } from 'sequelize-typescript';

@Table({ tableName: 'parties', underscored: true, timestamps: true })
export class Party extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column(DataType.INTEGER) declare workspaceId: number;
  @Column(DataType.TEXT) declare name: string;
  @Column(DataType.TEXT) declare partyType: 'PERSON' | 'ORGANIZATION';
  @Column(DataType.CHAR(2)) declare country: string | null;
  @Column(DataType.TEXT) declare email: string | null;
  @Column(DataType.TEXT) declare taxId: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
