import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { closeDatabase, connectDatabase, db, transaction } from '../../../server/db/database.js';
import { markWorkCommitted } from '../../../server/http/idempotency-store.js';
import { freePort } from '../../../server/db/embedded.js';
import { NoPrimaryError, parseDatabaseUrl, PrimaryClient } from '../../../server/db/hosts.js';
import { isDatabaseUnavailable } from '../../../server/db/unavailable.js';
import { loadConfig } from '../../../server/config.js';
import { knownError } from '../../../server/lib/errors.js';
import { runtime } from '../../../server/runtime.js';
import { actor } from '../../support/factories/index.js';
import { startServer } from '../../support/http.js';

/**
 * CONTRACT §22 without a cluster: a DATABASE_URL naming several hosts, a client that finds the one
 * that answers (the Patroni suite, tests/cross-cutting/hard/failover.test.ts, proves the rest with a
 * real primary and standby), and what the service answers while no host takes writes.
 */

const realUrl = () => runtime().config.DATABASE_URL!;
/** The file's database URL with `hosts` in place of its one host, and `query`. */
function withHosts(hosts: string[], query = ''): string {
  const u = new URL(realUrl());
  return `postgres://${u.username}:${u.password}@${hosts.join(',')}${u.pathname}${query}`;
}

describe('DATABASE_URL with several hosts', () => {
  it('is read like libpq: each host with its port (5432 when absent), target_session_attrs kept apart', () => {
    const t = parseDatabaseUrl('postgres://u:p%40ss@db1:5433,db2,[::1]:6000/finance?sslmode=require&target_session_attrs=read-write');
    expect(t.hosts).toEqual([
      { host: 'db1', port: 5433 },
      { host: 'db2', port: 5432 },
      { host: '::1', port: 6000 },
    ]);
    expect(t.readWrite).toBe(true);
    expect(t.url).toBe('postgres://u:p%40ss@db1:5433/finance?sslmode=require');
    expect(parseDatabaseUrl('postgresql://h/db').readWrite).toBe(false);
    expect(parseDatabaseUrl('postgres://h/db?target_session_attrs=primary').readWrite).toBe(true);
    for (const bad of ['mysql://h/db', 'postgres://h:99999/db', 'postgres://h1,,h2/db', 'postgres://h/db?target_session_attrs=standby']) {
      expect(() => parseDatabaseUrl(bad), bad).toThrow();
    }
  });

  it('is accepted by the configuration (one host or several); anything else is a configuration error', () => {
    const base = { JWT_SECRET: 'x'.repeat(32), CREDENTIALS_KEYS: 'k1:AAAA' };
    expect(
      loadConfig({ ...base, DATABASE_URL: 'postgres://u:p@h1:5432,h2:5432/db?target_session_attrs=read-write' }).DATABASE_URL,
    ).toContain('h1:5432,h2:5432');
    expect(() => loadConfig({ ...base, DATABASE_URL: 'http://h1/db' })).toThrow(/DATABASE_URL/);
  });

  it('PrimaryClient skips a host that is down and connects to the next; with none up it fails as ENOPRIMARY (a 503)', async () => {
    const real = new URL(realUrl());
    const dead = [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`];
    const t = parseDatabaseUrl(withHosts([dead[0]!, real.host, dead[1]!], '?target_session_attrs=read-write'));
    const client = new PrimaryClient({ connectionString: t.url, hosts: t.hosts, readWrite: true });
    await client.connect();
    try {
      expect(client.port).toBe(Number(real.port));
      expect((await client.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await client.end();
    }

    const none = parseDatabaseUrl(withHosts(dead, '?target_session_attrs=read-write'));
    const lost = new PrimaryClient({ connectionString: none.url, hosts: none.hosts, readWrite: true });
    const err = await lost.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NoPrimaryError);
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(knownError(err)?.headers).toEqual({ 'Retry-After': expect.stringMatching(/^[1-9]\d*$/) });
  });

  it('a PrimaryClient whose backend goes away while no query runs does not end the process; its next query fails', async () => {
    // what a primary killed in a failover does to a connection idle in its pool or between two statements:
    // the backend's FATAL 57P01 arrives with no query to hand it to, as an 'error' event of the client
    const client = new PrimaryClient({ connectionString: realUrl() });
    await client.connect();
    const ended = new Promise((resolve) => client.once('end', resolve));
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const killed = await db().query('SELECT pg_terminate_backend($1) AS ok', { bind: [pid], plain: true });
    expect(killed).toEqual({ ok: true });
    await ended; // with no listener of its own, the 'error' before it would have been an uncaught exception
    await expect(client.query('SELECT 1')).rejects.toThrow(/not queryable|terminated|ended/i);
  });

  it('classifies lost connections and read-only standbys as unavailable, and nothing else', () => {
    const wrapped = (parent: object, name = 'SequelizeDatabaseError') => Object.assign(new Error('x'), { name, parent, original: parent });
    expect(isDatabaseUnavailable(wrapped(new Error('Connection terminated unexpectedly')))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(Object.assign(new Error('read-only'), { code: '25006' })))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(Object.assign(new Error('terminating'), { code: '57P01' })))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(Object.assign(new Error('conn'), { code: '08006' })))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('acquire'), { name: 'SequelizeConnectionAcquireTimeoutError' }))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(Object.assign(new Error('dup'), { code: '23505' })))).toBe(false);
    expect(isDatabaseUnavailable(wrapped(Object.assign(new Error('syntax'), { code: '42601' })))).toBe(false);
    expect(isDatabaseUnavailable(new Error('Connection terminated, but this is just a message'))).toBe(true);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
  });
});

describe('while no host takes writes (CONTRACT §22)', () => {
  it('answers 503 with Retry-After on REST and tRPC, /readyz 503, /healthz 200; serves again once a host is back, with no restart', async () => {
    const api = await startServer();
    const login = { email: 'nobody@example.com', password: 'not-the-password' };
    expect((await api.post('/auth/login', login)).status).toBe(401);

    await closeDatabase();
    const dead = [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`];
    connectDatabase(withHosts(dead, '?target_session_attrs=read-write'));
    try {
      const started = Date.now();
      const rest = await api.post('/auth/login', login);
      expect(rest.status, rest.text).toBe(503);
      expect(rest.body).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/database/i) });
      expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
      const trpc = await api.post('/trpc/auth.login', login);
      expect(trpc.status, trpc.text).toBe(503);
      expect(Number(trpc.headers.get('retry-after'))).toBeGreaterThan(0);
      const ready = await api.get('/readyz');
      expect(ready.status).toBe(503);
      expect(Number(ready.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await api.get('/healthz')).status).toBe(200);
      expect(Date.now() - started, 'answered at once, not after a pool timeout').toBeLessThan(15_000);
    } finally {
      // back, as after a promotion: the same URL shape (a dead host first), the real one now up
      await closeDatabase();
      connectDatabase(withHosts([`127.0.0.1:${await freePort()}`, new URL(realUrl()).host], '?target_session_attrs=read-write'), {
        poolMax: 20,
      });
    }
    expect((await api.get('/readyz')).status).toBe(200);
    expect((await api.post('/auth/login', login)).status).toBe(401);
    // a keyed write: the pool, the idempotency lock's own pool and the LISTEN connection all find the host
    const { token } = await actor(api, { permissions: ['workspace.create'] });
    const send = () => api.post('/workspaces', { name: 'After the failover' }, { token, headers: { 'Idempotency-Key': 'back-1' } });
    const first = await send();
    expect(first.status, first.text).toBe(200);
    const again = await send();
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});

describe('a key whose first run lost its lock with the old primary (CONTRACT §22)', () => {
  it('marks its work once: a second run of the same key rolls its work back with 409 instead of writing twice', async () => {
    const caller = `user:${randomUUID()}`;
    const key = `after-failover-${randomUUID()}`;
    await db().query(
      `INSERT INTO idempotency_keys (caller, key, method, path, request_hash, state, created_at)
       VALUES (:caller, :key, 'POST', '/entries', 'h', 'RUNNING', now())`,
      { replacements: { caller, key } },
    );
    const mark = markWorkCommitted(caller, key);
    const writes: string[] = [];
    const run = (name: string) =>
      transaction(async (tx) => {
        await mark(tx);
        writes.push(name);
      });
    // the second run waits on the first's row until it commits, then finds the work marked
    const first = transaction(async (tx) => {
      await mark(tx);
      writes.push('first');
      await new Promise((r) => setTimeout(r, 300));
    });
    await new Promise((r) => setTimeout(r, 50));
    const second = run('second');
    await first;
    await expect(second).rejects.toThrow(/did its work/);
    await expect(run('third')).rejects.toThrow(/did its work/);
    expect(writes).toEqual(['first']);
  });
});
