import { createHash } from 'node:crypto';
import pg from 'pg';
import { AppError } from '../lib/errors.js';
import { onDatabaseClose, pgClientConfig, PrimaryClient } from './database.js';

let pool: pg.Pool | undefined;

/** Locks held at once per process: each holds a connection of its own for as long as its request runs. */
const MAX_HELD = 20;

function lockPool(): pg.Pool {
  if (pool) return pool;
  const created = new pg.Pool({
    ...pgClientConfig(),
    Client: PrimaryClient as unknown as new () => pg.ClientBase,
    max: MAX_HELD,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 10_000,
  });
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

const busy = () =>
  new AppError('SERVICE_UNAVAILABLE', 'Too many requests hold a lock right now; retry shortly', { headers: { 'Retry-After': '1' } });

/**
 * A connection for a new lock, or 503 with Retry-After at once when every one is held by a
 * running request (waiting for one would only end in a timeout), or when none comes in time.
 */
async function connectOrBusy(p: pg.Pool): Promise<pg.PoolClient> {
  if (p.totalCount >= MAX_HELD && p.idleCount === 0) throw busy();
  try {
    return await p.connect();
  } catch (err) {
    if (err instanceof Error && /timeout/i.test(err.message)) throw busy();
    throw err;
  }
}

/**
 * A PostgreSQL session-level advisory lock named by `name`, held on a connection of its own until
 * release(): it disappears by itself when this process or the database dies, so whoever can take
 * it knows no live holder exists. Resolves null when someone else holds it.
 */
export async function trySessionLock(name: string): Promise<SessionLock | null> {
  const digest = createHash('sha256').update(name).digest();
  const [a, b] = [digest.readInt32BE(0), digest.readInt32BE(4)];
  const client = await connectOrBusy(lockPool());
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
