import { AsyncLocalStorage } from 'node:async_hooks';
import { Sequelize } from 'sequelize-typescript';
import type { Transaction } from 'sequelize';
import { installTypeParsers } from './pg-types.js';
import { allModels } from './models/index.js';
import { AppError } from '../lib/errors.js';
import { multiHostPart, parseDatabaseUrl, pgModuleFor, PrimaryClient, type DatabaseTarget, type MultiHostConfig } from './hosts.js';

let instance: Sequelize | undefined;
const targets = new WeakMap<Sequelize, DatabaseTarget>();

/** How long opening a connection may take before it fails (a 503 at the edge, not a hang). */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The pool of `url`, which may name several hosts (CONTRACT §22, server/db/hosts.ts): every new
 * connection goes to the host that takes writes, so after a failover the pool, having dropped the
 * connections that broke, refills from the new primary with no restart.
 */
export function connectDatabase(url: string, opts: { poolMax?: number } = {}): Sequelize {
  installTypeParsers();
  const target = parseDatabaseUrl(url);
  instance = new Sequelize(target.url, {
    dialect: 'postgres',
    dialectModule: pgModuleFor(target),
    dialectOptions: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true },
    logging: false,
    models: allModels,
    pool: { max: opts.poolMax ?? 10, min: 0, idle: 10_000, acquire: 30_000 },
    define: { underscored: true },
  });
  instance.addHook('beforeQuery', rollBackWritesOutsideTransactions);
  targets.set(instance, target);
  return instance;
}

export function db(): Sequelize {
  if (!instance) throw new Error('database not connected');
  return instance;
}

/** Connection settings of the current database, for clients that must not come from the pool (open them with PrimaryClient). */
export function pgClientConfig(): MultiHostConfig {
  return clientConfigOf(db());
}

/**
 * Host, credentials and TLS (`sslmode` of DATABASE_URL) of a Sequelize instance, for a PrimaryClient
 * of its own (with the URL's other hosts, when it names several, so it too finds the primary).
 */
export function clientConfigOf(sequelize: Sequelize): MultiHostConfig {
  const c = sequelize.config;
  const ssl = (c.dialectOptions as { ssl?: import('pg').ClientConfig['ssl'] } | undefined)?.ssl;
  const target = targets.get(sequelize);
  return {
    host: c.host,
    port: Number(c.port),
    user: c.username,
    password: c.password ?? undefined,
    database: c.database,
    ssl,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(target ? multiHostPart(target) : {}),
  };
}

export { PrimaryClient };

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

/**
 * A preview (CONTRACT §20): every transaction started under it does its work, has its deferred
 * constraints (the ledger's caps and closed periods) checked, and is then rolled back, so nothing
 * commits and no afterCommit hook runs. `halted` names what the work stopped short of (see haltPreviewBefore).
 */
type Preview = { halted: string | null };
const previewScope = new AsyncLocalStorage<Preview>();

class RolledBack {
  constructor(readonly value: unknown) {}
}

/** Runs `work` as a preview: how it settled, and what it stopped short of, if anything. */
export async function asPreview<T>(work: () => Promise<T>): Promise<{ settled: PromiseSettledResult<T>; halted: string | null }> {
  const preview: Preview = { halted: null };
  const [settled] = await Promise.allSettled([previewScope.run(preview, work)]);
  return { settled, halted: preview.halted };
}

export const inPreview = (): boolean => previewScope.getStore() !== undefined;

/** Called before work a rollback cannot undo (e.g. `contacting QuickBooks`): a preview stops there. */
export function haltPreviewBefore(what: string): void {
  const preview = previewScope.getStore();
  if (!preview) return;
  preview.halted ??= what;
  throw new AppError('CONFLICT', `A preview stops before ${what}`);
}

const READ_ONLY_SQL = /^\s*(SELECT|SHOW)\b/i;

type PgConnection = { query: (sql: string) => Promise<unknown> };

/**
 * A statement outside any transaction (a model's create without `transaction`) commits at once; under a
 * preview, each such statement that may write runs in a transaction of its own on its connection, which is
 * rolled back after its deferred constraints are checked.
 */
function rollBackWritesOutsideTransactions(options: { transaction?: unknown }, query: unknown): void {
  if (!previewScope.getStore() || options.transaction) return;
  const q = query as { connection: PgConnection; run: (sql: string, ...rest: unknown[]) => Promise<unknown> };
  const run = q.run.bind(q);
  q.run = async (sql, ...rest) => {
    if (READ_ONLY_SQL.test(sql)) return run(sql, ...rest);
    await q.connection.query('BEGIN');
    try {
      const result = await run(sql, ...rest);
      await q.connection.query('SET CONSTRAINTS ALL IMMEDIATE');
      return result;
    } finally {
      await q.connection.query('ROLLBACK');
    }
  };
}

async function previewTransaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
  try {
    await db().transaction(async (tx) => {
      const value = await work(tx);
      await db().query('SET CONSTRAINTS ALL IMMEDIATE', { transaction: tx });
      throw new RolledBack(value);
    });
  } catch (err) {
    if (err instanceof RolledBack) return err.value as T;
    throw err;
  }
  throw new Error('unreachable: a preview transaction always rolls back');
}

/**
 * Inside a transaction: runs the first-transaction hook of the current request (the idempotency mark), once.
 * Returns it when it ran here, so that a rollback can hand it to the next transaction (`hook.done = false`).
 */
export async function runFirstTransactionHook(tx: Transaction): Promise<{ done: boolean } | undefined> {
  const hook = firstTransactionHook.getStore();
  if (!hook || hook.done) return undefined;
  hook.done = true;
  try {
    await hook.run(tx);
  } catch (err) {
    hook.done = false;
    throw err;
  }
  return hook;
}

/** Runs work in one database transaction; every query inside must be passed `tx`. */
export async function transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
  if (previewScope.getStore()) return previewTransaction(work);
  let ranHook: { done: boolean } | undefined;
  try {
    return await db().transaction(async (tx) => {
      ranHook = await runFirstTransactionHook(tx);
      return work(tx);
    });
  } catch (err) {
    if (ranHook) ranHook.done = false; // rolled back: the next transaction carries the hook instead
    throw err;
  }
}

export type { Transaction };
