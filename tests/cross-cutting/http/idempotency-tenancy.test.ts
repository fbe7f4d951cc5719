import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../../server/lib/clock.js';
import { Workspace } from '../../../server/db/models/index.js';
import { actor, login } from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const countNamed = (name: string) => Workspace.count({ where: { name } });
afterEach(() => clock.reset());

describe('Idempotency-Key on POST /workspaces (CONTRACT §1)', () => {
  it('replays the first response for the same key and body, creating only one workspace', async () => {
    const me = await actor(api);
    const opts = { token: me.token, headers: { 'Idempotency-Key': 'create-ws-1' } };
    const first = await api.post('/workspaces', { name: 'Once' }, opts);
    const second = await api.post('/workspaces', { name: 'Once' }, opts);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(await countNamed('Once')).toBe(1);
    expect((await api.get('/workspaces', { token: me.token })).body).toHaveLength(1);
  });

  it('the same key with a different body is a 409 and changes nothing', async () => {
    const me = await actor(api);
    const opts = { token: me.token, headers: { 'Idempotency-Key': 'create-ws-2' } };
    expect((await api.post('/workspaces', { name: 'First body' }, opts)).status).toBe(200);
    expectErrorBody(await api.post('/workspaces', { name: 'Second body' }, opts), 409, 'CONFLICT');
    expect(await countNamed('Second body')).toBe(0);
  });

  it('keys belong to their caller: two users with one key each get their own workspace', async () => {
    const alice = await actor(api);
    const bob = await actor(api);
    const headers = { 'Idempotency-Key': 'shared-key' };
    const a = await api.post('/workspaces', { name: 'Per caller' }, { token: alice.token, headers });
    const b = await api.post('/workspaces', { name: 'Per caller' }, { token: bob.token, headers });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotency-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
    expect(await countNamed('Per caller')).toBe(2);
  });

  it('a key longer than 255 characters is a 400', async () => {
    const me = await actor(api);
    const res = await api.post(
      '/workspaces',
      { name: 'Too long key' },
      { token: me.token, headers: { 'Idempotency-Key': 'k'.repeat(256) } },
    );
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(await countNamed('Too long key')).toBe(0);
    const ok = await api.post('/workspaces', { name: 'Max key' }, { token: me.token, headers: { 'Idempotency-Key': 'k'.repeat(255) } });
    expect(ok.status).toBe(200);
  });

  it('replays a refusal too: a 403 stays a 403 for that key', async () => {
    const me = await actor(api, { permissions: ['workspace.read'] });
    const opts = { token: me.token, headers: { 'Idempotency-Key': 'refused' } };
    expectErrorBody(await api.post('/workspaces', { name: 'Nope' }, opts), 403, 'FORBIDDEN');
    const again = await api.post('/workspaces', { name: 'Nope' }, opts);
    expectErrorBody(again, 403, 'FORBIDDEN');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
  });

  it('parallel requests with one key do the work once: the others replay it or are told it is still running (409)', async () => {
    const me = await actor(api);
    const opts = { token: me.token, headers: { 'Idempotency-Key': 'parallel-1' } };
    const results = await Promise.all(Array.from({ length: 8 }, () => api.post('/workspaces', { name: 'Parallel' }, opts)));
    const fresh = results.filter((r) => r.status === 200 && r.headers.get('idempotency-replayed') === null);
    expect(fresh).toHaveLength(1);
    for (const r of results) {
      if (r === fresh[0]) continue;
      if (r.status === 409) expectErrorBody(r, 409, 'CONFLICT');
      else {
        expect(r.headers.get('idempotency-replayed')).toBe('true');
        expect(r.body).toEqual(fresh[0].body);
      }
    }
    expect(await countNamed('Parallel')).toBe(1);
  });

  it('the same key on another path is a 409', async () => {
    const me = await actor(api);
    const opts = { token: me.token, headers: { 'Idempotency-Key': 'path-1' } };
    const ws = await api.post('/workspaces', { name: 'Path one' }, opts);
    expect(ws.status).toBe(200);
    expectErrorBody(await api.post('/projects', { workspaceId: ws.body.id, name: 'P' }, opts), 409, 'CONFLICT');
    expect((await api.get('/projects', { token: me.token, query: { workspaceId: ws.body.id } })).body).toHaveLength(0);
  });

  it('a response is kept for 24 hours, then the key can be used afresh', async () => {
    const me = await actor(api);
    const t0 = Date.now();
    clock.set(() => new Date(t0));
    const headers = { 'Idempotency-Key': 'day-1' };
    expect((await api.post('/workspaces', { name: 'Daily' }, { token: me.token, headers })).status).toBe(200);
    clock.set(() => new Date(t0 + 24 * 3_600_000 - 60_000));
    const late = await api.post('/workspaces', { name: 'Daily' }, { token: await login(api, me), headers });
    expect(late.headers.get('idempotency-replayed')).toBe('true');
    expect(await countNamed('Daily')).toBe(1);
    clock.set(() => new Date(t0 + 24 * 3_600_000 + 60_000));
    const after = await api.post('/workspaces', { name: 'Daily' }, { token: await login(api, me), headers });
    expect(after.status).toBe(200);
    expect(after.headers.get('idempotency-replayed')).toBeNull();
    expect(await countNamed('Daily')).toBe(2);
  });
});
