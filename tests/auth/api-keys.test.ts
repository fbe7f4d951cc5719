import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { clock } from '../../server/lib/clock.js';
import { runtime } from '../../server/runtime.js';
import { entryWorld, type EntryWorld, actor, addProjectMember, buildWorkspace, createKey } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { ISO } from '../support/tenancy.js';
import { KEY_FORMAT } from './api-keys-helpers.js';

/** CONTRACT §19: API keys for apps, managed and used through HTTP. */
let api: Api;
let w: EntryWorld;

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api, { projects: 2 });
});
afterEach(() => clock.reset());

const entryBody = (projectId: number, reference = 'by-key') => ({
  projectId,
  entryType: 'INCOME',
  amountCents: 4_200,
  baseCurrency: 'USD',
  entryDate: '2026-04-02',
  reference,
});

describe('POST /api-keys', () => {
  it('returns the key once with its secret; lists and gets never show it; only a hash is stored', async () => {
    const res = await api.post(
      '/api-keys',
      {
        workspaceId: w.workspaceId,
        name: 'Billing app',
        permissions: ['entry.create', 'entry.export', 'entry.create'],
        projectIds: [w.projectIds[0]],
      },
      { token: w.token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(String),
      workspaceId: w.workspaceId,
      name: 'Billing app',
      prefix: res.body.apiKey.slice(0, 16),
      permissions: ['entry.create', 'entry.export'],
      projectIds: [w.projectIds[0]],
      createdBy: w.userId,
      createdAt: expect.stringMatching(ISO),
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      apiKey: expect.stringMatching(KEY_FORMAT),
    });
    const secret: string = res.body.apiKey;
    const listed = await api.get('/api-keys', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(listed.status).toBe(200);
    const { apiKey: _shownOnce, ...withoutSecret } = res.body;
    expect(listed.body).toContainEqual(withoutSecret);
    const one = await api.get(`/api-keys/${res.body.id}`, { token: w.token });
    expect(one.body).toEqual(withoutSecret);
    for (const r of [listed, one]) expect(r.text).not.toContain(secret.slice(17));
    const [row] = await db().query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = :id', {
      replacements: { id: res.body.id },
      type: QueryTypes.SELECT,
    });
    expect(JSON.stringify(row)).not.toContain(secret.slice(17));
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses what the contract refuses: 400 for non-grantable or unknown permissions, foreign projects, a past expiry; 403 beyond the creator', async () => {
    const other = await buildWorkspace();
    const bad = [
      { permissions: ['user.read'] },
      { permissions: ['user.edit'] },
      { permissions: ['workspace.create'] },
      { permissions: ['apikey.manage'] },
      { permissions: ['root.all'] },
      { permissions: ['entry.create'], projectIds: [other.projectIds[0]] },
      { permissions: ['entry.create'], expiresAt: '2020-01-01T00:00:00Z' },
      { permissions: ['entry.create'], name: '' },
      { permissions: ['entry.create'], name: 'x'.repeat(101) },
      { permissions: ['entry.create'], secret: 'mine' },
    ];
    for (const body of bad) {
      expectErrorBody(
        await api.post('/api-keys', { workspaceId: w.workspaceId, name: 'n', ...body }, { token: w.token }),
        400,
        'BAD_REQUEST',
      );
    }
    const limited = await actor(api, { permissions: ['apikey.manage', 'entry.create'], workspaceId: w.workspaceId });
    expectErrorBody(
      await api.post('/api-keys', { workspaceId: w.workspaceId, name: 'n', permissions: ['entry.void'] }, { token: limited.token }),
      403,
      'FORBIDDEN',
    );
    const [{ n }] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE name = :name', {
      replacements: { name: 'n' },
      type: QueryTypes.SELECT,
    });
    expect(n).toBe(0);
  });

  it('needs apikey.manage and full membership of the workspace (403 for a project member and a stranger)', async () => {
    const body = { workspaceId: w.workspaceId, name: 'n2', permissions: ['entry.create'] };
    const without = await actor(api, { permissions: ['entry.create'], workspaceId: w.workspaceId });
    expectErrorBody(await api.post('/api-keys', body, { token: without.token }), 403, 'FORBIDDEN');
    const projectMember = await actor(api);
    await addProjectMember(w.projectIds[0], projectMember.id);
    expectErrorBody(await api.post('/api-keys', body, { token: projectMember.token }), 403, 'FORBIDDEN');
    const stranger = await actor(api);
    expectErrorBody(await api.post('/api-keys', body, { token: stranger.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/api-keys', { token: stranger.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
    expectErrorBody(await api.get(`/api-keys/${key.id}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/api-keys/${key.id}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(`/api-keys/${key.id}/rotate`, {}, { token: stranger.token }), 404, 'NOT_FOUND');
  });
});

describe('a key at work', () => {
  it('with entry.create and projectIds [p] creates entries in p only, over REST and tRPC, attributed to the key', async () => {
    const [p, q] = w.projectIds;
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'], projectIds: [p] });
    const rest = await api.post('/entries', entryBody(p, 'rest-by-key'), { token: key.apiKey });
    expect(rest.status).toBe(200);
    expect(rest.body.projectId).toBe(p);
    expect(rest.body.createdBy).toBeNull(); // CONTRACT §19: what a key creates is the key's, not its creator's
    const trpc = await api.post('/trpc/entries.create', entryBody(p, 'trpc-by-key'), { token: key.apiKey });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.reference).toBe('trpc-by-key');
    expect(trpc.body.result.data.createdBy).toBeNull();

    expectErrorBody(await api.post('/entries', entryBody(q), { token: key.apiKey }), 404, 'NOT_FOUND');
    const trpcOther = await api.post('/trpc/entries.create', entryBody(q), { token: key.apiKey });
    expect(trpcOther.status).toBe(404);
    const other = await buildWorkspace();
    expectErrorBody(await api.post('/entries', entryBody(other.projectIds[0]), { token: key.apiKey }), 404, 'NOT_FOUND');

    const events = await db().query<{ actor_type: string; actor_id: string }>(
      'SELECT actor_type, actor_id FROM entry_events WHERE entry_id IN (:ids) ORDER BY id',
      { replacements: { ids: [rest.body.id, trpc.body.result.data.id] }, type: QueryTypes.SELECT },
    );
    expect(events.length).toBeGreaterThan(1);
    for (const e of events) expect(e).toEqual({ actor_type: 'API_KEY', actor_id: key.id });
    const history = await api.get(`/entries/${rest.body.id}/events`, { token: w.token });
    expect(history.body[0]).toMatchObject({ actorType: 'API_KEY', actorId: key.id });
  });

  it('holds only its permissions (403) and reads as a member of its projects would, on express routes too', async () => {
    const [p, q] = w.projectIds;
    const inQ = (await api.post('/entries', entryBody(q, 'only-in-q'), { token: w.token })).body;
    const inP = (await api.post('/entries', entryBody(p, 'in-p'), { token: w.token })).body;
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'], projectIds: [p] });
    const list = await api.get('/entries', { token: key.apiKey, query: { workspaceId: w.workspaceId, limit: 100 } });
    expect(list.status).toBe(200);
    expect(list.body.items.map((e: { projectId: number }) => e.projectId).every((id: number) => id === p)).toBe(true);
    expect(list.body.items.map((e: { id: number }) => e.id)).toContain(inP.id);
    expectErrorBody(await api.get(`/entries/${inQ.id}`, { token: key.apiKey }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(`/entries/${inP.id}/void`, { reason: 'x' }, { token: key.apiKey }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/entries/export/csv', { token: key.apiKey, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/auth/me', { token: key.apiKey }), 403, 'FORBIDDEN');

    const exporter = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.export'], projectIds: [p] });
    const csv = await api.get('/entries/export/csv', { token: exporter.apiKey, query: { workspaceId: w.workspaceId } });
    expect(csv.status).toBe(200);
    expect(csv.text).toContain('in-p');
    expect(csv.text).not.toContain('only-in-q');
    const other = await buildWorkspace();
    expectErrorBody(await api.get('/entries', { token: key.apiKey, query: { workspaceId: other.id } }), 403, 'FORBIDDEN');
  });

  it('keeps lastUsedAt to the minute', async () => {
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
    clock.set(() => new Date('2030-05-05T10:20:37.123Z'));
    expect((await api.get('/entries', { token: key.apiKey, query: { workspaceId: w.workspaceId } })).status).toBe(200);
    clock.reset();
    const got = await api.get(`/api-keys/${key.id}`, { token: w.token });
    expect(got.body.lastUsedAt).toBe('2030-05-05T10:20:00.000Z');
  });
});

describe('revoke, rotate, expire', () => {
  it('DELETE revokes at once (401 on the next call); a second DELETE is a 409', async () => {
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
    expect((await api.post('/entries', entryBody(w.projectId), { token: key.apiKey })).status).toBe(200);
    expect((await api.del(`/api-keys/${key.id}`, { token: w.token })).body).toEqual({ success: true });
    expectErrorBody(await api.post('/entries', entryBody(w.projectId), { token: key.apiKey }), 401, 'UNAUTHORIZED');
    expect((await api.post('/trpc/entries.create', entryBody(w.projectId), { token: key.apiKey })).status).toBe(401);
    expectErrorBody(await api.del(`/api-keys/${key.id}`, { token: w.token }), 409, 'CONFLICT');
    expect((await api.get(`/api-keys/${key.id}`, { token: w.token })).body.revokedAt).toMatch(ISO);
  });

  it('rotate: the old secret works for graceSeconds, then 401; without grace it stops at once', async () => {
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
    const rotated = await api.post(`/api-keys/${key.id}/rotate`, { graceSeconds: 60 }, { token: w.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.apiKey).toMatch(KEY_FORMAT);
    expect(rotated.body.apiKey).not.toBe(key.apiKey);
    expect(rotated.body.id).toBe(key.id);
    const call = (secret: string) => api.get('/entries', { token: secret, query: { workspaceId: w.workspaceId } });
    expect((await call(key.apiKey)).status).toBe(200);
    expect((await call(rotated.body.apiKey)).status).toBe(200);
    const start = Date.now();
    clock.set(() => new Date(start + 61_000));
    expectErrorBody(await call(key.apiKey), 401, 'UNAUTHORIZED');
    expect((await call(rotated.body.apiKey)).status).toBe(200);
    clock.reset();

    const again = await api.post(`/api-keys/${key.id}/rotate`, {}, { token: w.token });
    expectErrorBody(await call(rotated.body.apiKey), 401, 'UNAUTHORIZED');
    expect((await call(again.body.apiKey)).status).toBe(200);
    expectErrorBody(await api.post(`/api-keys/${key.id}/rotate`, { graceSeconds: 86_401 }, { token: w.token }), 400, 'BAD_REQUEST');
  });

  it('an expired key is a 401', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'], expiresAt });
    const call = () => api.get('/entries', { token: key.apiKey, query: { workspaceId: w.workspaceId } });
    expect((await call()).status).toBe(200);
    clock.set(() => new Date(Date.parse(expiresAt) + 1));
    expectErrorBody(await call(), 401, 'UNAUTHORIZED');
  });

  it('a malformed or unknown key, and an integration key as the bearer, are 401', async () => {
    for (const token of ['fes_app_abc', `fes_app_AbCdEfGh_${'x'.repeat(43)}`, `fes_live_AbCdEfGh_${'x'.repeat(40)}`]) {
      expectErrorBody(await api.get('/entries', { token, query: { workspaceId: w.workspaceId } }), 401, 'UNAUTHORIZED');
    }
  });
});

describe('rate limit and idempotency per key', () => {
  it('API_KEY_RATE_PER_MINUTE per key, counted in PostgreSQL: 429 with Retry-After beyond, other keys unaffected', async () => {
    const configured = runtime().config.API_KEY_RATE_PER_MINUTE;
    runtime().config.API_KEY_RATE_PER_MINUTE = 3;
    try {
      const a = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
      const b = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
      clock.set(() => new Date('2031-01-01T00:00:10Z'));
      const call = (secret: string) => api.get('/entries', { token: secret, query: { workspaceId: w.workspaceId } });
      for (let i = 0; i < 3; i++) expect((await call(a.apiKey)).status).toBe(200);
      const refused = await call(a.apiKey);
      expectErrorBody(refused, 429, 'TOO_MANY_REQUESTS');
      expect(refused.headers.get('retry-after')).toBe('50');
      expect((await call(b.apiKey)).status).toBe(200);
      const [{ n }] = await db().query<{ n: number }>('SELECT request_count AS n FROM api_key_rate_windows WHERE api_key_id = :id', {
        replacements: { id: a.id },
        type: QueryTypes.SELECT,
      });
      expect(n).toBe(4);
      clock.set(() => new Date('2031-01-01T00:01:00Z'));
      expect((await call(a.apiKey)).status).toBe(200);
    } finally {
      runtime().config.API_KEY_RATE_PER_MINUTE = configured;
    }
  });

  it('counts a request once, however many layers authenticate it (the idempotency middleware, then the procedure)', async () => {
    const configured = runtime().config.API_KEY_RATE_PER_MINUTE;
    runtime().config.API_KEY_RATE_PER_MINUTE = 3;
    try {
      const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
      clock.set(() => new Date('2031-02-01T00:00:10Z'));
      const post = (i: number) =>
        api.post('/entries', entryBody(w.projectIds[0]!, `once-${i}`), { token: key.apiKey, headers: { 'Idempotency-Key': `once-${i}` } });
      for (let i = 0; i < 3; i++) expect((await post(i)).status, `request ${i}`).toBe(200);
      expectErrorBody(await post(3), 429, 'TOO_MANY_REQUESTS');
      const [{ n }] = await db().query<{ n: number }>('SELECT request_count AS n FROM api_key_rate_windows WHERE api_key_id = :id', {
        replacements: { id: key.id },
        type: QueryTypes.SELECT,
      });
      expect(n).toBe(4);
    } finally {
      runtime().config.API_KEY_RATE_PER_MINUTE = configured;
      clock.reset();
    }
  });

  it('an Idempotency-Key belongs to one API key: another key (or the creator) with the same key runs its own request', async () => {
    const a = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
    const b = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
    const headers = { 'Idempotency-Key': `per-key-${a.id}` };
    const first = await api.post('/entries', entryBody(w.projectId, 'idem'), { token: a.apiKey, headers });
    const replay = await api.post('/entries', entryBody(w.projectId, 'idem'), { token: a.apiKey, headers });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    const byB = await api.post('/entries', entryBody(w.projectId, 'idem'), { token: b.apiKey, headers });
    expect(byB.headers.get('idempotency-replayed')).toBeNull();
    expect(byB.body.id).not.toBe(first.body.id);
    const byCreator = await api.post('/entries', entryBody(w.projectId, 'idem'), { token: w.token, headers });
    expect(byCreator.headers.get('idempotency-replayed')).toBeNull();
    expect(byCreator.body.id).not.toBe(first.body.id);

    expect((await api.del(`/api-keys/${a.id}`, { token: w.token })).status).toBe(200);
    expectErrorBody(await api.post('/entries', entryBody(w.projectId, 'idem'), { token: a.apiKey, headers }), 401, 'UNAUTHORIZED');
  });
});
