import { Column, DataType, Model, Table } from 'sequelize-typescript';

@Table({ tableName: 'workspace_members', underscored: true, timestamps: true, updatedAt: false })
export class WorkspaceMember extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true }) declare workspaceId: number;
  @Column({ type: DataType.UUID, primaryKey: true }) declare userId: string;
  declare createdAt: Date;
}
