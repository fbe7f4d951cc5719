import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPATCH_QUEUE, PULL_QUEUE } from '../../../server/domains/accounting/sync/scheduled-pulls.js';
import { runtime } from '../../../server/runtime.js';
import { startGenericProvider, type GenericProvider } from '../../emulators/generic-provider.js';
import type { Api, ApiResponse } from '../../support/http.js';
import { onCleanup, waitFor } from './support/cleanup.js';
import { countedClient, startInstances, Tally, type Instance } from './support/cluster.js';
import { ensureHaproxy, startHaproxy, type Haproxy } from './support/haproxy.js';
import { ADMIN } from './support/server-process.js';

/**
 * Several instances, proven (issue 18): three real server processes on one PostgreSQL (this
 * file's database), same secrets, behind Debian's HAProxy (round robin, health check /readyz).
 * Requests go through the load balancer, or straight to a named instance where the point is
 * "another instance": what one instance changes (logout, permissions, an idempotency key, a
 * refund's cap, an ingested externalId, a login failure, a claimed pull) holds on all of them at
 * once, and a SIGKILLed instance loses no acknowledged write while the balancer routes around it.
 *
 * The instances cache verified sessions for 60 s (AUTH_CACHE_TTL_MS, the maximum): an immediate
 * 401/403 on another instance can only come from the cross-process invalidation over
 * LISTEN/NOTIFY (server/db/change-listener.ts), which the first checks prove.
 */

const GENERIC_TYPE = 'ACME_BOOKS';
const GENERIC_TOKEN = 'multi-instance-provider-token';
const ok = (res: ApiResponse) => res.status === 200 || res.status === 201;

const tally = new Tally();
const figures: Record<string, unknown> = {};
let instances: Instance[];
let proxy: Haproxy;
let lb: Api;
let provider: GenericProvider;
let pool: pg.Pool;
let w: {
  token: string;
  workspaceId: number;
  projectId: number;
  partyIds: number[];
  integrationId: string;
  apiKey: string;
  connectionId: string;
  fireAt: Date;
  cron: string;
  adminsAfterStart: number;
};

const sql = (text: string, params: unknown[] = []) => pool.query(text, params);

function body(res: ApiResponse, what: string): any {
  if (!ok(res)) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
}

/** Direct targets first, then the load balancer: item `i` of a spread request goes to targets()[i % 4]. */
const targets = (): Api[] => [...instances.map((i) => i.api), lb];
const byName = (name: string) => instances.find((i) => i.name === name)!;

async function createUser(label: string, permissions: string[]): Promise<{ id: string; email: string; password: string }> {
  const email = `${label}-${randomUUID().slice(0, 8)}@example.com`;
  const password = `${label}-password-${randomUUID().slice(0, 8)}`;
  const user = body(await lb.post('/users', { email, name: label, password, permissions }, { token: w.token }), `create user ${label}`);
  body(await lb.post(`/workspaces/${w.workspaceId}/members`, { userId: user.id }, { token: w.token }), 'add member');
  return { id: user.id, email, password };
}

const login = async (u: { email: string; password: string }) =>
  body(await lb.post('/auth/login', { email: u.email, password: u.password }), 'login').access_token as string;

function entryBody(key: string, amountCents: number) {
  return {
    projectId: w.projectId,
    entryType: 'EXPENSE',
    baseCurrency: 'USD',
    amountCents,
    entryDate: '2026-03-10',
    fromPartyId: w.partyIds[0],
    toPartyId: w.partyIds[1],
    description: `multi-instance ${key}`,
    reference: key,
  };
}

/** Builds the world through the load balancer, and the scheduled connection whose one fire time the pull check counts. */
async function buildWorld(): Promise<typeof w> {
  const adminsAfterStart = Number((await sql('SELECT count(*)::int AS n FROM users')).rows[0].n);
  const token = body(await lb.post('/auth/login', ADMIN), 'admin login').access_token as string;
  const ws = body(await lb.post('/workspaces', { name: 'Multi-instance' }, { token }), 'workspace');
  const project = body(await lb.post('/projects', { workspaceId: ws.id, name: 'Spread' }, { token }), 'project');
  const partyIds: number[] = [];
  for (const name of ['Us Ltd', 'Them Inc'])
    partyIds.push(body(await lb.post('/parties', { workspaceId: ws.id, name, partyType: 'ORGANIZATION' }, { token }), 'party').id);
  const integration = body(await lb.post('/integrations', { workspaceId: ws.id, name: 'Feed' }, { token }), 'integration');
  // an hourly cron firing at the next whole minute (at least 5 s away): exactly one fire time is due
  // for the rest of the file, so every GET /entries the provider sees is a run of that one fire time
  const fireAt = new Date(Math.ceil((Date.now() + 5_000) / 60_000) * 60_000);
  const cron = `${fireAt.getUTCMinutes()} * * * *`;
  const connection = body(
    await lb.post(
      '/accounting/connections',
      {
        workspaceId: ws.id,
        providerType: GENERIC_TYPE,
        name: 'Scheduled books',
        credentials: { accessToken: GENERIC_TOKEN },
        config: { baseUrl: provider.baseUrl },
        syncMode: 'BIDIRECTIONAL',
        syncScheduleCron: cron,
        requireReview: false,
        requireCompletenessForSync: false,
      },
      { token },
    ),
    'connection',
  );
  return {
    token,
    workspaceId: ws.id,
    projectId: project.id,
    partyIds,
    integrationId: integration.id,
    apiKey: integration.apiKey,
    connectionId: connection.id,
    fireAt,
    cron,
    adminsAfterStart,
  };
}

beforeAll(async () => {
  const databaseUrl = runtime().config.DATABASE_URL!;
  pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  onCleanup('test pool', () => pool.end());
  provider = await startGenericProvider({ token: GENERIC_TOKEN });
  onCleanup('generic provider', () => provider.close());
  const [binary, started] = await Promise.all([
    ensureHaproxy(),
    startInstances(databaseUrl, 3, tally, { ACCOUNTING_ALLOW_PRIVATE_HOSTS: 'true', AUTH_CACHE_TTL_MS: '60000' }),
  ]);
  instances = started;
  proxy = await startHaproxy(
    binary,
    instances.map((i) => ({ name: i.name, port: i.port })),
  );
  lb = countedClient('lb', proxy.url, tally);
  w = await buildWorld();
  figures.setup = { haproxy: proxy.version, instances: instances.map((i) => `${i.name}:${i.port}`), lb: proxy.url, cron: w.cron };
}, 600_000);

afterAll(async () => {
  figures.requests = { total: tally.total(), perTarget: tally.snapshot() };
  figures.haproxy = proxy ? await proxy.servers().catch((err) => String(err)) : 'not started';
  for (const [name, value] of Object.entries(figures)) console.log(`[multi-instance] ${name}: ${JSON.stringify(value)}`);
});

describe('three instances behind HAProxy', () => {
  it('started at once on one empty database: one bootstrap admin, and the balancer spreads requests over all three', async () => {
    expect(w.adminsAfterStart).toBe(1);
    const served = new Map<string, number>();
    for (let i = 0; i < 30; i++) {
      const res = await lb.get('/auth/me', { token: w.token });
      expect(res.status).toBe(200);
      const by = res.headers.get('x-served-by') ?? 'none';
      served.set(by, (served.get(by) ?? 0) + 1);
    }
    figures.roundRobin = Object.fromEntries(served);
    for (const i of instances) expect(served.get(i.name) ?? 0, `requests served by ${i.name}`).toBeGreaterThanOrEqual(5);
  });

  it('a logout on one instance is refused (401) on the others at once', async () => {
    const user = await createUser('logout', ['workspace.read']);
    const me = (token: string) => Promise.all(instances.map(async (i) => (await i.api.get('/auth/me', { token })).status));

    // control: the instances do serve a session from memory. Revoked behind the triggers' back (no
    // notification), it is still accepted everywhere; the announcement alone makes all three refuse it.
    const control = await login(user);
    expect(await me(control)).toEqual([200, 200, 200]);
    const { sid } = jwt.decode(control) as { sid: string };
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('ALTER TABLE sessions DISABLE TRIGGER sessions_auth_changed');
      await c.query('UPDATE sessions SET revoked_at = now() WHERE id = $1', [sid]);
      await c.query('ALTER TABLE sessions ENABLE TRIGGER sessions_auth_changed');
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK');
      throw err;
    } finally {
      c.release();
    }
    expect(await me(control), 'cached sessions served until announced').toEqual([200, 200, 200]);
    await sql(`SELECT pg_notify('auth_changed', $1)`, [user.id]);
    await expect.poll(() => me(control), { timeout: 5_000, interval: 20 }).toEqual([401, 401, 401]);

    // three rounds per instance doing the logout; the others are asked at once, with nothing in between
    const rounds: Record<string, number[]>[] = [];
    figures.logout = rounds;
    for (const out of [...instances, ...instances, ...instances]) {
      const token = await login(user);
      expect(await me(token)).toEqual([200, 200, 200]); // cached on all three now
      expect((await out.api.post('/auth/logout', {}, { token })).status).toBe(200);
      const after = await me(token);
      const viaLb = (await lb.get('/auth/me', { token })).status;
      rounds.push({ [`logout on ${out.name}`]: [...after, viaLb] });
      expect(after, `after logout on ${out.name}: i1, i2, i3`).toEqual([401, 401, 401]);
      expect(viaLb).toBe(401);
    }
  });

  it('a removed permission (PATCH /users/{id}) is refused (403) everywhere at once, and a granted one works everywhere at once', async () => {
    const user = await createUser('perm', ['workspace.read']);
    const token = await login(user);
    const read = () => Promise.all(targets().map(async (t) => (await t.get(`/workspaces/${w.workspaceId}`, { token })).status));
    expect(await read()).toEqual([200, 200, 200, 200]);
    const rounds: Record<string, number[]>[] = [];
    figures.permissions = rounds;
    for (const by of [...instances, ...instances, ...instances]) {
      expect((await by.api.patch(`/users/${user.id}`, { permissions: [] }, { token: w.token })).status).toBe(200);
      const removed = await read();
      expect((await by.api.patch(`/users/${user.id}`, { permissions: ['workspace.read'] }, { token: w.token })).status).toBe(200);
      const granted = await read();
      rounds.push({ [`removed on ${by.name}`]: removed, [`granted on ${by.name}`]: granted });
      expect(removed, `after removal on ${by.name}: i1, i2, i3, lb`).toEqual([403, 403, 403, 403]);
      expect(granted, `after grant on ${by.name}: i1, i2, i3, lb`).toEqual([200, 200, 200, 200]);
    }
  });

  it('one Idempotency-Key: 409 on another instance while the first still runs, then replayed there with the same body', async () => {
    const original = body(await lb.post('/entries', entryBody(`idem-${randomUUID()}`, 5_000), { token: w.token }), 'entry');
    const key = `idem-${randomUUID()}`;
    const refund = { amountCents: 700, description: 'one refund, asked several times' };
    const send = (api: Api, b: object = refund) =>
      api.post(`/entries/${original.id}/refund`, b, { token: w.token, headers: { 'Idempotency-Key': key } });

    // hold the original's row lock from a connection of our own: the refund on i1 waits on it
    const holder = await pool.connect();
    let first!: Promise<ApiResponse>;
    let whileRunning!: number[];
    let different!: ApiResponse;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM entries WHERE id = $1 FOR UPDATE', [original.id]);
      first = send(byName('i1').api);
      await expect
        .poll(
          async () =>
            (
              await sql(
                `SELECT count(*)::int AS n FROM pg_stat_activity
                  WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%entries%'`,
              )
            ).rows[0].n,
          { timeout: 10_000, interval: 25 },
        )
        .toBeGreaterThan(0);
      const running = await Promise.all([send(byName('i2').api), send(byName('i3').api), send(lb)]);
      whileRunning = running.map((r) => r.status);
      for (const r of running) expect(r.body.message).toMatch(/still in progress/);
      different = await send(byName('i3').api, { ...refund, amountCents: 800 });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    const done = await first;
    expect(done.status, done.text).toBe(200);
    expect(done.headers.get('idempotency-replayed')).toBeNull();
    expect(whileRunning).toEqual([409, 409, 409]);
    expect(different.status).toBe(409);

    const replays = await Promise.all([send(byName('i2').api), send(byName('i3').api), send(lb)]);
    for (const r of replays) {
      expect(r.status).toBe(done.status);
      expect(r.headers.get('idempotency-replayed')).toBe('true');
      expect(r.text).toBe(done.text);
    }
    const refunds = await sql(
      `SELECT d.id, d.amount_cents FROM entry_links l JOIN entries d ON d.id = l.derived_entry_id
        WHERE l.original_entry_id = $1 AND l.link_type = 'REFUND'`,
      [original.id],
    );
    expect(refunds.rows.map((r) => [Number(r.id), Number(r.amount_cents)])).toEqual([[done.body.id, 700]]);
    figures.idempotency = {
      firstOn: 'i1',
      whileRunning: { i2: whileRunning[0], i3: whileRunning[1], lb: whileRunning[2], differentBodyOnI3: different.status },
      first: done.status,
      replays: replays.map((r) => `${r.status} replayed=${r.headers.get('idempotency-replayed')}`),
      refundsInDb: refunds.rowCount,
    };
  });

  it('parallel refunds of one entry spread over the instances never exceed it (checked in the database)', async () => {
    const AMOUNT = 10_000;
    const PART = 1_000;
    const original = body(await lb.post('/entries', entryBody(`refunds-${randomUUID()}`, AMOUNT), { token: w.token }), 'entry');
    const t = targets();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t[i % t.length]!.post(`/entries/${original.id}/refund`, { amountCents: PART }, { token: w.token }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    const succeeded = answers.filter(ok);
    const [db] = (
      await sql(
        `SELECT count(*)::int AS n, COALESCE(sum(d.amount_cents), 0)::bigint AS total,
                (SELECT entry_status FROM entries WHERE id = $1) AS original_status,
                (SELECT status_reason FROM entries WHERE id = $1) AS original_reason
           FROM entry_links l JOIN entries d ON d.id = l.derived_entry_id
          WHERE l.original_entry_id = $1 AND l.link_type = 'REFUND' AND d.entry_status <> 'VOIDED'`,
        [original.id],
      )
    ).rows;
    figures.refunds = {
      sent: answers.length,
      succeeded: succeeded.length,
      refused409: statuses.filter((s) => s === 409).length,
      other: statuses.filter((s) => !ok({ status: s } as ApiResponse) && s !== 409),
      refundedInDb: Number(db.total),
      original: AMOUNT,
      originalStatus: db.original_status,
    };
    expect(
      statuses.every((s) => s === 200 || s === 201 || s === 409),
      `statuses ${statuses.join(',')}`,
    ).toBe(true);
    expect(Number(db.total)).toBeLessThanOrEqual(AMOUNT);
    expect(succeeded.length * PART).toBeLessThanOrEqual(AMOUNT);
    expect(db.n).toBe(succeeded.length);
    // one after another, each refund that fits is made: the entry ends fully refunded, hence VOIDED
    expect(succeeded.length).toBe(AMOUNT / PART);
    expect(Number(db.total)).toBe(AMOUNT);
    expect([db.original_status, db.original_reason]).toEqual(['VOIDED', 'Fully refunded']);
  });

  it('parallel ingest batches with overlapping externalIds spread over the instances create each external id once', async () => {
    const BATCHES = 6;
    const SIZE = 100;
    const STEP = 40; // batch b holds externalIds b*STEP .. b*STEP+SIZE-1: neighbours share 60
    const prefix = `ov-${randomUUID().slice(0, 8)}`;
    const item = (n: number) => ({
      externalId: `${prefix}-${n}`,
      projectId: w.projectId,
      entryType: n % 2 ? 'INCOME' : 'EXPENSE',
      amountCents: 1_000 + n,
      baseCurrency: 'USD',
      entryDate: '2026-04-02',
      description: `overlap ${n}`,
      fromParty: { name: `Feed Vendor ${n % 3}` },
      tagNames: [`feed-${n % 2}`],
    });
    const unique = (BATCHES - 1) * STEP + SIZE;
    const t = targets();
    const responses = await Promise.all(
      Array.from({ length: BATCHES }, (_, b) =>
        t[b % t.length]!.post(
          '/api/v1/ingest',
          { entries: Array.from({ length: SIZE }, (_, i) => item(b * STEP + i)) },
          { headers: { 'X-API-Key': w.apiKey } },
        ),
      ),
    );
    const idOf = new Map<string, number>();
    let created = 0;
    let duplicates = 0;
    for (const res of responses) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.failed).toBe(0);
      created += res.body.created;
      duplicates += res.body.duplicates;
      for (const r of res.body.results as { externalId: string; status: string; entryId: number }[]) {
        expect(['CREATED', 'DUPLICATE']).toContain(r.status);
        if (!idOf.has(r.externalId)) idOf.set(r.externalId, r.entryId);
        expect(r.entryId, `${r.externalId} named as two entries`).toBe(idOf.get(r.externalId));
      }
    }
    const [db] = (
      await sql(
        `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct_ext,
                (SELECT count(*)::int FROM parties WHERE workspace_id = $2 AND name LIKE 'Feed Vendor %') AS parties,
                (SELECT count(*)::int FROM tags WHERE workspace_id = $2 AND name LIKE 'feed-%') AS tags
           FROM entries WHERE integration_id = $1 AND external_id LIKE $3`,
        [w.integrationId, w.workspaceId, `${prefix}-%`],
      )
    ).rows;
    figures.ingest = { batches: BATCHES, itemsSent: BATCHES * SIZE, uniqueExternalIds: unique, created, duplicates, entriesInDb: db.n };
    expect(created).toBe(unique);
    expect(duplicates).toBe(BATCHES * SIZE - unique);
    expect(db).toEqual({ n: unique, distinct_ext: unique, parties: 3, tags: 2 });
    expect(new Set(idOf.values()).size).toBe(unique);
  });

  it('the login throttle holds across instances: 40 parallel wrong passwords → at most 10 checked (401), the rest 429', async () => {
    const user = await createUser('throttle', []);
    const t = targets();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t[i % t.length]!.post('/auth/login', { email: user.email, password: `wrong-password-${i}` })),
    );
    const statuses = answers.map((r) => r.status);
    const failures = Number((await sql('SELECT count(*)::int AS n FROM login_failures WHERE email = $1', [user.email])).rows[0].n);
    const rightPassword = await Promise.all(
      t.map(async (api) => (await api.post('/auth/login', { email: user.email, password: user.password })).status),
    );
    figures.loginThrottle = {
      sent: answers.length,
      answered401: statuses.filter((s) => s === 401).length,
      answered429: statuses.filter((s) => s === 429).length,
      other: statuses.filter((s) => s !== 401 && s !== 429),
      failuresRecorded: failures,
      rightPasswordAfter: rightPassword,
    };
    expect(
      statuses.every((s) => s === 401 || s === 429),
      `statuses ${statuses.join(',')}`,
    ).toBe(true);
    expect(statuses.filter((s) => s === 401).length, 'passwords checked (401) for one email across instances').toBeLessThanOrEqual(10);
    for (const r of answers.filter((a) => a.status === 429)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(rightPassword, 'the right password after the limit, on i1, i2, i3, lb').toEqual([429, 429, 429, 429]);
  });

  const pullsSeen = () => provider.requests.filter((r) => r.method === 'GET' && r.path === '/entries');
  const pullJobs = async () =>
    Number(
      (await sql(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND singleton_key = $2`, [PULL_QUEUE, w.connectionId])).rows[0]
        .n,
    );

  it('a scheduled pull (BIDIRECTIONAL, one fire time due) runs once across the three instances', async () => {
    await waitFor(
      'the scheduled pull',
      () => (pullsSeen().length > 0 ? true : undefined),
      Math.max(0, w.fireAt.getTime() - Date.now()) + 120_000,
      200,
    );
    const finished = await waitFor(
      'the pull to finish',
      async () =>
        ((await sql('SELECT last_finished_at FROM accounting_pull_schedule WHERE connection_id = $1', [w.connectionId])).rows[0]
          ?.last_finished_at as Date | null) ?? undefined,
      30_000,
      200,
    );
    await sleep(5_000); // several polling rounds of every instance's pull worker (2 s): a second queued pull would have run
    const [schedule] = (
      await sql('SELECT last_fire_at, last_error FROM accounting_pull_schedule WHERE connection_id = $1', [w.connectionId])
    ).rows;
    figures.scheduledPull = { cron: w.cron, fireAt: w.fireAt, providerListCalls: pullsSeen().length, pullJobs: await pullJobs(), finished };
    expect(schedule.last_fire_at.getTime()).toBe(w.fireAt.getTime());
    expect(schedule.last_error).toBeNull();
    expect(pullsSeen().length).toBe(1);
    expect(await pullJobs()).toBe(1);
  });

  it('kill -9 of one instance under write load: every acknowledged write is in the database, HAProxy routes around it', async () => {
    const victim = byName('i3');
    type Sent = {
      key: string;
      body: ReturnType<typeof entryBody>;
      phase: 'before' | 'killed' | 'down';
      status?: number;
      by?: string;
      ackId?: number;
    };
    const sent: Sent[] = [];
    const WORKERS = 6;
    const MAX_REQUESTS = 400;
    const deadline = Date.now() + 45_000;
    let phase: Sent['phase'] = 'before';
    let stop = false;
    const acked = (p?: Sent['phase']) => sent.filter((s) => s.ackId !== undefined && (!p || s.phase === p)).length;
    const worker = async () => {
      while (!stop && sent.length < MAX_REQUESTS && Date.now() < deadline) {
        const key = `kill-${randomUUID()}`;
        const s: Sent = { key, body: entryBody(key, 100 + sent.length), phase };
        sent.push(s);
        try {
          const res = await lb.post('/entries', s.body, { token: w.token, headers: { 'Idempotency-Key': key } });
          s.status = res.status;
          s.by = res.headers.get('x-served-by') ?? 'lb';
          if (ok(res)) s.ackId = res.body.id;
        } catch {
          s.status = 0;
        }
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, worker));
    let detectedMs: number | undefined;
    try {
      await waitFor('writes acknowledged before the kill', () => (acked() >= 30 ? true : undefined), 30_000);
      await victim.process.kill();
      const killedAt = Date.now();
      phase = 'killed';
      await proxy.waitForStatus(victim.name, /^DOWN/, 10_000);
      detectedMs = Date.now() - killedAt;
      phase = 'down';
      await waitFor('writes acknowledged after HAProxy marked it down', () => (acked('down') >= 60 ? true : undefined), 30_000);
    } finally {
      stop = true;
      await load;
    }

    const count = (list: Sent[]) => {
      const out: Record<string, number> = {};
      for (const s of list) {
        const label = s.status ? `${s.status} ${s.by}` : 'no answer';
        out[label] = (out[label] ?? 0) + 1;
      }
      return out;
    };
    const unacked = sent.filter((s) => s.ackId === undefined);
    const ackedIds = sent.filter((s) => s.ackId !== undefined);
    const found = (
      await sql('SELECT id, reference, amount_cents FROM entries WHERE id = ANY($1::bigint[])', [ackedIds.map((s) => s.ackId)])
    ).rows;
    const foundById = new Map(found.map((r) => [Number(r.id), r]));
    const ackedFound = ackedIds.filter((s) => {
      const r = foundById.get(s.ackId!);
      return r && r.reference === s.key && Number(r.amount_cents) === s.body.amountCents;
    }).length;

    // the unacknowledged ones, sent again as a client would (same key, same body), through the balancer
    const retried: string[] = [];
    for (const s of unacked) {
      const res = await lb.post('/entries', s.body, { token: w.token, headers: { 'Idempotency-Key': s.key } });
      retried.push(`${res.status}${res.headers.get('idempotency-replayed') ? ' replayed' : ''}`);
      if (res.status === 409) expect(res.body.message).toMatch(/response was lost/);
      else expect(res.status, res.text).toBe(200);
    }
    const perKey = (
      await sql(
        'SELECT reference, count(*)::int AS n FROM entries WHERE workspace_id = $1 AND reference = ANY($2::text[]) GROUP BY reference',
        [w.workspaceId, sent.map((s) => s.key)],
      )
    ).rows;
    const twice = perKey.filter((r) => r.n !== 1).map((r) => r.reference);

    figures.kill = {
      victim: victim.name,
      workers: WORKERS,
      sent: sent.length,
      acknowledged: ackedIds.length,
      acknowledgedFound: ackedFound,
      notAcknowledged: unacked.length,
      retriedAfter: retried,
      entriesOncePerKey: perKey.length,
      detectedDownMs: detectedMs,
      beforeKill: count(sent.filter((s) => s.phase === 'before')),
      killedNotYetDown: count(sent.filter((s) => s.phase === 'killed')),
      afterDown: count(sent.filter((s) => s.phase === 'down')),
    };
    expect(ackedFound, 'acknowledged entries found in the database').toBe(ackedIds.length);
    // only requests already in flight on the victim can fail (at most one per worker); a new
    // connection refused by it is retried on another instance
    expect(unacked.length).toBeLessThanOrEqual(WORKERS);
    for (const s of unacked) expect(s.phase === 'down', `${s.key} failed with ${s.status} after the victim was marked down`).toBe(false);
    const afterDown = sent.filter((s) => s.phase === 'down');
    expect(afterDown.length).toBeGreaterThanOrEqual(60);
    expect(afterDown.every((s) => s.ackId !== undefined && s.by !== victim.name)).toBe(true);
    expect(twice, 'keys stored more than once').toEqual([]);
    expect(perKey.length, 'every sent key exists once after the retries').toBe(sent.length);
  });

  it('the scheduled pull still ran once after later dispatcher runs (a claimed fire time is never pulled again)', async () => {
    const finished = (await sql('SELECT last_finished_at FROM accounting_pull_schedule WHERE connection_id = $1', [w.connectionId])).rows[0]
      .last_finished_at as Date;
    // pg-boss sends the dispatch job once a minute; wait for one that started after the pull ended
    const dispatched = await waitFor(
      'a dispatcher run after the pull',
      async () => {
        const { rows } = await sql(
          `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'completed' AND started_on > $2`,
          [DISPATCH_QUEUE, finished],
        );
        return rows[0].n > 0 ? Number(rows[0].n) : undefined;
      },
      100_000,
      500,
    );
    await sleep(3_000);
    figures.scheduledPullLater = { dispatcherRunsAfterPull: dispatched, providerListCalls: pullsSeen().length, pullJobs: await pullJobs() };
    expect(pullsSeen().length).toBe(1);
    expect(await pullJobs()).toBe(1);
  });
});
