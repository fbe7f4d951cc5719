import { createHash } from 'node:crypto';
import pg from 'pg';

/** A number is a bigint advisory key as such (kept where earlier releases used one); a name is hashed to a key pair. */
export type StartupLockKey = number | string;

function lockCall(key: StartupLockKey): [string, number[]] {
  if (typeof key === 'number') return ['SELECT pg_advisory_lock($1)', [key]];
  const digest = createHash('sha256').update(`startup:${key}`).digest();
  return ['SELECT pg_advisory_lock($1, $2)', [digest.readInt32BE(0), digest.readInt32BE(4)]];
}

/**
 * Runs `fn` while holding a blocking PostgreSQL session-level advisory lock, taken on a connection
 * of its own (the pool may be a single connection that `fn` needs). Instances starting at once on
 * one database run their start-up DDL one at a time through it; the lock goes with the connection
 * if this process dies.
 */
export async function withStartupLock<T>(connection: pg.ClientConfig, key: StartupLockKey, fn: () => Promise<T>): Promise<T> {
  const lock = new pg.Client(connection);
  await lock.connect();
  try {
    await lock.query(...lockCall(key));
    return await fn();
  } finally {
    await lock.end();
  }
}
