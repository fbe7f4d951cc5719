import { AsyncLocalStorage } from 'node:async_hooks';
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

const closeHooks = new Set<() => Promise<void>>();

/** Work to finish before the pool closes (e.g. a LISTEN client of its own). */
export function onDatabaseClose(hook: () => Promise<void>): () => void {
  closeHooks.add(hook);
  return () => closeHooks.delete(hook);
}

export async function closeDatabase(): Promise<void> {
  await Promise.all([...closeHooks].map((hook) => hook()));
  closeHooks.clear();
  const s = instance;
  instance = undefined;
  await s?.close();
}

/** Work to do inside the first transaction of a request (once it commits; again after a rollback). */
type FirstTransactionHook = { run: (tx: Transaction) => Promise<void>; done: boolean };
const firstTransactionHook = new AsyncLocalStorage<FirstTransactionHook>();

/** Runs `fn` so that the first committed transaction started under it also runs `hook` (the idempotency mark). */
export function withFirstTransactionHook<T>(hook: (tx: Transaction) => Promise<void>, fn: () => T): T {
  return firstTransactionHook.run({ run: hook, done: false }, fn);
}

/** Runs work in one database transaction; every query inside must be passed `tx`. */
export async function transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
  const hook = firstTransactionHook.getStore();
  let ranHook = false;
  try {
    return await db().transaction(async (tx) => {
      if (hook && !hook.done) {
        hook.done = ranHook = true;
        await hook.run(tx);
      }
      return work(tx);
    });
  } catch (err) {
    if (ranHook) hook!.done = false; // rolled back: the next transaction carries the hook instead
    throw err;
  }
}

export type { Transaction };
