import type pg from 'pg';
import { db, type Transaction } from './database.js';

/*
 * Raw pg beside Sequelize, for the hot statements of the ledger (its create, its detail read): named
 * (prepared) statements on the pool's or the transaction's own pg connection.
 */

/** A pg client from Sequelize's pool, as its connection manager hands it out. */
type PooledClient = Pick<pg.Client, 'query'>;
type ConnectionManager = {
  getConnection(options?: { type?: string }): Promise<PooledClient>;
  releaseConnection(connection: PooledClient): Promise<void>;
};

/**
 * Runs a named prepared statement on a connection of the Sequelize pool, without Sequelize's
 * query pipeline: PostgreSQL parses and plans `text` once per connection (pg remembers the
 * name per connection and sends only Bind/Execute afterwards), and the rows come back as pg
 * parsed them, with the type parsers every connection of the pool uses (server/db/pg-types.ts).
 * For hot single statements outside a transaction only (a `write` commits on its own, as any
 * statement outside a transaction does): the statement's `name` must be unique to its `text`
 * for the life of the process.
 */
export async function preparedRows<R extends pg.QueryResultRow>(
  name: string,
  text: string,
  values: unknown[],
  kind: 'read' | 'write' = 'read',
): Promise<R[]> {
  const manager = db().connectionManager as unknown as ConnectionManager;
  const client = await manager.getConnection(kind === 'read' ? { type: 'SELECT' } : {});
  try {
    const result = await client.query<R>({ name, text, values });
    return result.rows;
  } finally {
    await manager.releaseConnection(client);
  }
}

/**
 * A statement of the create path straight on the transaction's pg connection: a named (prepared) statement,
 * parsed and planned once per connection, and none of Sequelize's per-query work (replacement escaping,
 * logging, result shaping). Errors come back as Sequelize's would (`name`, `parent`), so the one error table
 * (lib/errors.ts knownError) maps them the same: a unique violation is a 409, a foreign key a 400.
 * `text` must be the same for a given `name` in a process.
 */
export async function preparedQuery<T>(tx: Transaction, name: string, text: string, values: unknown[]): Promise<T[]> {
  const client = (tx as unknown as { connection?: pg.ClientBase }).connection;
  if (!client) throw new Error('preparedQuery: the transaction has no connection');
  try {
    return (await client.query<T & pg.QueryResultRow>({ name, text, values })).rows;
  } catch (err) {
    throw asSequelizeError(err);
  }
}

function asSequelizeError(err: unknown): unknown {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return err;
  const name =
    code === '23505'
      ? 'SequelizeUniqueConstraintError'
      : code === '23503'
        ? 'SequelizeForeignKeyConstraintError'
        : 'SequelizeDatabaseError';
  const wrapped = new Error((err as Error).message, { cause: err });
  wrapped.name = name;
  return Object.assign(wrapped, { parent: err, original: err });
}
