import { PrimaryClient, type MultiHostConfig } from './hosts.js';

/** A number is a bigint advisory key as such (kept where earlier releases used one); a name is hashed to one. */
export type StartupLockKey = number | string;

const lockCall = (key: StartupLockKey): [string, unknown[]] =>
  typeof key === 'number'
    ? ['SELECT pg_advisory_lock($1::bigint)', [key]]
    : ['SELECT pg_advisory_lock(hashtextextended($1, 0))', [`startup:${key}`]];

/**
 * Runs `fn` while holding a blocking PostgreSQL session-level advisory lock, taken on a connection
 * of its own (the pool may be a single connection that `fn` needs). Instances starting at once on
 * one database run their start-up DDL one at a time through it; the lock goes with the connection
 * if this process dies.
 */
export async function withStartupLock<T>(connection: MultiHostConfig, key: StartupLockKey, fn: () => Promise<T>): Promise<T> {
  const lock = new PrimaryClient(connection);
  await lock.connect();
  try {
    await lock.query(...lockCall(key));
    return await fn();
  } finally {
    await lock.end();
  }
}
