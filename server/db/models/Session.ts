import { Column, DataType, Model, Table } from 'sequelize-typescript';

@Table({ tableName: 'sessions', underscored: true, timestamps: false })
export class Session extends Model {
  @Column({ type: DataType.UUID, primaryKey: true, defaultValue: DataType.UUIDV4 }) declare id: string;
  @Column(DataType.UUID) declare userId: string;
  @Column(DataType.DATE) declare createdAt: Date;
  @Column(DataType.DATE) declare expiresAt: Date;
  @Column(DataType.DATE) declare revokedAt: Date | null;
}
