import { Column, DataType, Model, Table } from 'sequelize-typescript';

@Table({ tableName: 'workspaces', underscored: true, timestamps: true })
export class Workspace extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column(DataType.TEXT) declare name: string;
  @Column(DataType.CHAR(3)) declare baseCurrency: string;
  @Column(DataType.UUID) declare createdBy: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
