import type pg from 'pg';
import type { Transaction } from '../../../db/database.js';

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
