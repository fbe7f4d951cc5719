import { Column, DataType, Model, Table } from 'sequelize-typescript';

@Table({ tableName: 'project_members', underscored: true, timestamps: true, updatedAt: false })
export class ProjectMember extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true }) declare projectId: number;
  @Column({ type: DataType.UUID, primaryKey: true }) declare userId: string;
  @Column(DataType.INTEGER) declare workspaceId: number;
  declare createdAt: Date;
}
