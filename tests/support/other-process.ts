import jwt from 'jsonwebtoken';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { LISTENER_APPLICATION_NAME } from '../../server/db/change-listener.js';
import { pgClientConfig } from '../../server/db/database.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

/**
 * A database connection of its own, as a second server process or an operator would use:
 * its changes reach this process only through the database (triggers and notifications).
 * Opened before the file's tests, closed after them.
 */
export function otherProcess(): { sql: (text: string, params?: unknown[]) => Promise<pg.QueryResult> } {
  const client = new pg.Client(pgClientConfig());
  beforeAll(() => client.connect());
  afterAll(() => client.end());
  return { sql: (text, params) => client.query(text, params) };
}

/** Runs `text` from `other` with the entries UPDATE trigger off: a change nobody announces. */
export async function unannouncedEntryUpdate(other: ReturnType<typeof otherProcess>, text: string, params: unknown[]) {
  await other.sql('BEGIN');
  await other.sql('ALTER TABLE entries DISABLE TRIGGER entries_updated_notify');
  await other.sql(text, params);
  await other.sql('ALTER TABLE entries ENABLE TRIGGER entries_updated_notify');
  await other.sql('COMMIT');
}

/**
 * Kills this process's LISTEN connection from `other` and waits until the server has noticed: the
 * session behind `token`, cached before, is no longer held (the server may be listening again on a
 * new connection already: either way nothing cached before the loss may be served).
 */
export async function killChangeListener(other: ReturnType<typeof otherProcess>, token: string): Promise<void> {
  const sid = (jwt.decode(token) as { sid: string }).sid;
  expect(sessionCache.holds(sid)).toBe(true);
  const { rows } = await other.sql('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [
    LISTENER_APPLICATION_NAME,
  ]);
  const pids = rows.map((r: { pid: number }) => r.pid);
  if (pids.length === 0) throw new Error('no LISTEN connection to kill');
  await other.sql('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
  await expect.poll(() => sessionCache.holds(sid), { timeout: 5_000 }).toBe(false);
}
