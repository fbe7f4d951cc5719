import { createHash } from 'node:crypto';
import pg from 'pg';
import { onDatabaseClose, pgClientConfig } from './database.js';

let pool: pg.Pool | undefined;

function lockPool(): pg.Pool {
  if (pool) return pool;
  const created = new pg.Pool({ ...pgClientConfig(), max: 20, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 10_000 });
  // an idle client lost with the database is dropped; the next lock opens a new one
  created.on('error', () => undefined);
  pool = created;
  onDatabaseClose(async () => {
    if (pool === created) pool = undefined;
    await created.end();
  });
  return created;
}

export type SessionLock = { release: () => Promise<void> };

/**
 * A PostgreSQL session-level advisory lock named by `name`, held on a connection of its own until
 * release(): it disappears by itself when this process or the database dies, so whoever can take
 * it knows no live holder exists. Resolves null when someone else holds it.
 */
export async function trySessionLock(name: string): Promise<SessionLock | null> {
  const digest = createHash('sha256').update(name).digest();
  const [a, b] = [digest.readInt32BE(0), digest.readInt32BE(4)];
  const client = await lockPool().connect();
  // a checked-out client has no pool listener: losing the database must not be an unhandled 'error'
  const ignore = () => undefined;
  client.on('error', ignore);
  const giveBack = (err?: Error) => {
    client.off('error', ignore);
    client.release(err);
  };
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [a, b]);
    if (!rows[0]?.ok) {
      giveBack();
      return null;
    }
  } catch (err) {
    giveBack(err as Error);
    throw err;
  }
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      try {
        await client.query('SELECT pg_advisory_unlock($1, $2)', [a, b]);
        giveBack();
      } catch (err) {
        giveBack(err as Error); // the connection goes, and the lock with it
      }
    },
  };
}
