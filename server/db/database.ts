import { Sequelize } from 'sequelize-typescript';
import type { Transaction } from 'sequelize';
import { installTypeParsers } from './pg-types.js';
import { allModels } from './models/index.js';

let instance: Sequelize | undefined;

export function connectDatabase(url: string, opts: { poolMax?: number } = {}): Sequelize {
  installTypeParsers();
  instance = new Sequelize(url, {
    dialect: 'postgres',
    logging: false,
    models: allModels,
    pool: { max: opts.poolMax ?? 10, min: 0, idle: 10_000, acquire: 30_000 },
    define: { underscored: true },
  });
  return instance;
}

export function db(): Sequelize {
  if (!instance) throw new Error('database not connected');
  return instance;
}

/** Connection settings of the current database, for clients that must not come from the pool. */
export function pgClientConfig(): import('pg').ClientConfig {
  return clientConfigOf(db());
}

/** Host, credentials and TLS (`sslmode` of DATABASE_URL) of a Sequelize instance, for a pg.Client of its own. */
export function clientConfigOf(sequelize: Sequelize): import('pg').ClientConfig {
  const c = sequelize.config;
  const ssl = (c.dialectOptions as { ssl?: import('pg').ClientConfig['ssl'] } | undefined)?.ssl;
  return { host: c.host, port: Number(c.port), user: c.username, password: c.password ?? undefined, database: c.database, ssl };
}

export async function closeDatabase(): Promise<void> {
  const s = instance;
  instance = undefined;
  await s?.close();
}

/** Runs work in one database transaction; every query inside must be passed `tx`. */
export function transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
  return db().transaction((tx) => work(tx));
}

export type { Transaction };
