import type { Sequelize } from 'sequelize-typescript';

export type Migration = {
  name: string;
  up: (db: Sequelize) => Promise<void>;
  down: (db: Sequelize) => Promise<void>;
};

export const sql = (statements: string) => async (db: Sequelize) => {
  await db.query(statements);
};
