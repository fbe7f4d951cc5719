import { Column, DataType, Model, Table } from 'sequelize-typescript';

@Table({ tableName: 'tags', underscored: true, timestamps: true })
export class Tag extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column(DataType.INTEGER) declare workspaceId: number;
  @Column(DataType.TEXT) declare name: string;
  @Column(DataType.TEXT) declare color: string | null;
  @Column(DataType.DATE) declare archivedAt: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
