import { Column, DataType, Model, Table } from 'sequelize-typescript';

@Table({ tableName: 'users', underscored: true, timestamps: true })
export class User extends Model {
  @Column({ type: DataType.UUID, primaryKey: true, defaultValue: DataType.UUIDV4 }) declare id: string;
  @Column(DataType.TEXT) declare email: string;
  @Column(DataType.TEXT) declare name: string;
  @Column(DataType.TEXT) declare passwordHash: string;
  @Column(DataType.ARRAY(DataType.TEXT)) declare permissions: string[];
  @Column(DataType.BOOLEAN) declare isActive: boolean;
  @Column(DataType.UUID) declare createdBy: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
