import { Column, DataType, Model, Table } from 'sequelize-typescript';

@Table({ tableName: 'entry_sources', underscored: true, timestamps: true, updatedAt: false })
export class EntrySource extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column(DataType.INTEGER) declare workspaceId: number;
  @Column(DataType.TEXT) declare kind: 'MANUAL' | 'INTEGRATION' | 'BANK';
  @Column(DataType.TEXT) declare name: string;
  @Column(DataType.UUID) declare integrationId: string | null;
  declare createdAt: Date;
}
