import type pg from 'pg';
import { db } from '../../db/database.js';

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
 * For hot single-statement reads outside a transaction only: the statement's `name` must be
 * unique to its `text` for the life of the process.
 */
export async function preparedRows<R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<R[]> {
  const manager = db().connectionManager as unknown as ConnectionManager;
  const client = await manager.getConnection({ type: 'SELECT' });
  try {
    const result = await client.query<R>({ name, text, values });
    return result.rows;
  } finally {
    await manager.releaseConnection(client);
  }
}
