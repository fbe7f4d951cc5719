import { Column, DataType, Model, Table } from 'sequelize-typescript';

@Table({ tableName: 'projects', underscored: true, timestamps: true })
export class Project extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column(DataType.INTEGER) declare workspaceId: number;
  @Column(DataType.TEXT) declare name: string;
  @Column(DataType.TEXT) declare code: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
