import { beforeAll, describe, expect, it } from 'vitest';
import { EntrySource, User, Workspace, WorkspaceMember } from '../../server/db/models/index.js';
import {
  actor,
  addProjectMember,
  bankWorld,
  buildUser,
  buildWorkspace,
  createEntry,
  createKey,
  entryWorld,
  fxWorld,
  login,
  putRate,
} from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { expectNoSecrets, ids, ISO } from '../support/tenancy.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

describe('POST /workspaces', () => {
  it('creates the workspace, makes the creator a member and adds the MANUAL entry source', async () => {
    const me = await actor(api);
    const res = await api.post('/workspaces', { name: '  Acme  ', baseCurrency: 'EUR' }, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Acme',
      baseCurrency: 'EUR',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(await WorkspaceMember.count({ where: { workspaceId: res.body.id, userId: me.id } })).toBe(1);
    expect((await Workspace.findByPk(res.body.id))!.createdBy).toBe(me.id);
    const sources = await api.get('/entry-sources', { token: me.token, query: { workspaceId: res.body.id } });
    expect(sources.body).toEqual([
      {
        id: expect.any(Number),
        workspaceId: res.body.id,
        kind: 'MANUAL',
        name: 'Manual',
        integrationId: null,
        createdAt: expect.stringMatching(ISO),
      },
    ]);
    const me2 = await api.get('/auth/me', { token: me.token });
    expect(me2.body.memberships).toContainEqual({ workspaceId: res.body.id, role: 'WORKSPACE', projectIds: [] });
  });

  it('defaults the base currency to USD', async () => {
    const me = await actor(api);
    expect((await api.post('/workspaces', { name: 'Plain' }, { token: me.token })).body.baseCurrency).toBe('USD');
  });

  it('validates the body (400) and needs workspace.create (403)', async () => {
    const me = await actor(api);
    for (const body of [{ name: '' }, { name: 'X', baseCurrency: 'usd' }, { name: 'X', baseCurrency: 'EURO' }, { name: 'X', id: 7 }, {}]) {
      expectErrorBody(await api.post('/workspaces', body, { token: me.token }), 400, 'BAD_REQUEST');
    }
    const reader = await actor(api, { permissions: ['workspace.read', 'workspace.edit'] });
    expectErrorBody(await api.post('/workspaces', { name: 'X' }, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post('/workspaces', { name: 'X' }), 401, 'UNAUTHORIZED');
  });
});

describe('GET /workspaces and /workspaces/{id}', () => {
  it('lists only the workspaces the caller is a member of, ordered by id', async () => {
    const me = await actor(api);
    const b = await buildWorkspace({ members: [me.id] });
    const a = await buildWorkspace({ members: [me.id] });
    const other = await buildWorkspace();
    const res = await api.get('/workspaces', { token: me.token });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([b.id, a.id].sort((x, y) => x - y));
    expect(ids(res.body)).not.toContain(other.id);
  });

  it('reads one workspace; another workspace is a 404, a bad id a 400', async () => {
    const ws = await buildWorkspace({ name: 'Mine' });
    const me = await actor(api, { workspaceId: ws.id });
    const foreign = await buildWorkspace();
    const res = await api.get(`/workspaces/${ws.id}`, { token: me.token });
    expect(res.body).toMatchObject({ id: ws.id, name: 'Mine', baseCurrency: 'USD' });
    expectErrorBody(await api.get(`/workspaces/${foreign.id}`, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get('/workspaces/999999', { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get('/workspaces/abc', { token: me.token }), 400, 'BAD_REQUEST');
  });

  it('a project-only member does not see the workspace object', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api);
    await addProjectMember(ws.projectIds[0], me.id);
    expect((await api.get('/workspaces', { token: me.token })).body).toEqual([]);
    expectErrorBody(await api.get(`/workspaces/${ws.id}`, { token: me.token }), 404, 'NOT_FOUND');
  });

  it('needs workspace.read, checked before membership (403 even for a foreign workspace)', async () => {
    const foreign = await buildWorkspace();
    const me = await actor(api, { permissions: ['workspace.edit'] });
    expectErrorBody(await api.get('/workspaces', { token: me.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get(`/workspaces/${foreign.id}`, { token: me.token }), 403, 'FORBIDDEN');
  });
});

describe('PATCH /workspaces/{id}', () => {
  it('renames and changes the base currency', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    const res = await api.patch(`/workspaces/${ws.id}`, { name: 'Renamed', baseCurrency: 'GBP' }, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ws.id, name: 'Renamed', baseCurrency: 'GBP' });
  });

  it('404 for another workspace, 403 without workspace.edit (even there), 400 for unknown fields', async () => {
    const ws = await buildWorkspace();
    const foreign = await buildWorkspace({ name: 'Theirs' });
    const me = await actor(api, { workspaceId: ws.id });
    expectErrorBody(await api.patch(`/workspaces/${foreign.id}`, { name: 'Hijacked' }, { token: me.token }), 404, 'NOT_FOUND');
    const reader = await actor(api, { permissions: ['workspace.read'], workspaceId: ws.id });
    expectErrorBody(await api.patch(`/workspaces/${ws.id}`, { name: 'X' }, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/workspaces/${foreign.id}`, { name: 'X' }, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/workspaces/${ws.id}`, { createdBy: me.id }, { token: me.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.patch(`/workspaces/${ws.id}`, { baseCurrency: 'eur' }, { token: me.token }), 400, 'BAD_REQUEST');
    expect((await Workspace.findByPk(foreign.id))!.name).toBe('Theirs');
  });

  it('keeps the base currency once an entry, an FX rate or a bank account is stated in it (409); same currency and renames stay 200', async () => {
    const base = async (w: { workspaceId: number }) => (await Workspace.findByPk(w.workspaceId))!.baseCurrency;
    const withEntry = await entryWorld(api);
    await createEntry(withEntry);
    const withRate = await fxWorld(api, 'USD');
    await putRate(withRate, 'EUR', '2026-01-15', '1.1');
    const withAccount = await bankWorld(api);
    for (const w of [withEntry, withRate, withAccount]) {
      const res = await api.patch(`/workspaces/${w.workspaceId}`, { name: 'Kept', baseCurrency: 'JPY' }, { token: w.token });
      expectErrorBody(res, 409, 'CONFLICT');
      expect(await base(w)).toBe('USD');
      expect((await Workspace.findByPk(w.workspaceId))!.name).not.toBe('Kept');
      const same = await api.patch(`/workspaces/${w.workspaceId}`, { name: 'Renamed', baseCurrency: 'USD' }, { token: w.token });
      expect(same.status).toBe(200);
      expect(same.body).toMatchObject({ name: 'Renamed', baseCurrency: 'USD' });
    }
    const empty = await entryWorld(api);
    const changed = await api.patch(`/workspaces/${empty.workspaceId}`, { baseCurrency: 'JPY' }, { token: empty.token });
    expect(changed.body).toMatchObject({ id: empty.workspaceId, baseCurrency: 'JPY' });
    expect(await base(empty)).toBe('JPY');
  });
});

describe("members through an API key (CONTRACT §4, §19: only the key's workspace exists)", () => {
  it("a key of workspace 2 cannot add, or see, a user of its creator's workspace 1 (404), though its creator could", async () => {
    const one = await buildWorkspace({ projects: 1 });
    const two = await buildWorkspace({ projects: 1 });
    const creator = await actor(api, { workspaceId: one.id });
    await WorkspaceMember.create({ workspaceId: two.id, userId: creator.id });
    const onlyInOne = await buildUser({ name: 'Only In One' });
    await WorkspaceMember.create({ workspaceId: one.id, userId: onlyInOne.id });
    const key = await createKey(api, creator.token, { workspaceId: two.id, permissions: ['workspace.read', 'workspace.edit'] });
    const asKey = { token: key.apiKey };

    const added = await api.post(`/workspaces/${two.id}/members`, { userId: onlyInOne.id }, asKey);
    expectErrorBody(added, 404, 'NOT_FOUND');
    expect(added.text).not.toContain(onlyInOne.email);
    expectErrorBody(await api.post(`/projects/${two.projectIds[0]}/members`, { userId: onlyInOne.id }, asKey), 404, 'NOT_FOUND');
    expect(await WorkspaceMember.count({ where: { workspaceId: two.id, userId: onlyInOne.id } })).toBe(0);
    // nor a user its creator made that belongs nowhere
    const made = await api.post(
      '/users',
      { email: `made-${Date.now()}@example.test`, name: 'Made', password: 'long-enough-password-1', permissions: [] },
      { token: creator.token },
    );
    expectErrorBody(await api.post(`/workspaces/${two.id}/members`, { userId: made.body.id }, asKey), 404, 'NOT_FOUND');
    // users are never a key's business (no user.* for keys): 403 before anything
    expectErrorBody(await api.get('/users', asKey), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/users/${onlyInOne.id}`, { name: 'Renamed' }, asKey), 403, 'FORBIDDEN');
    // a member of the key's workspace is reachable; the creator in person reaches the workspace-1 user
    const inTwo = await buildUser();
    await WorkspaceMember.create({ workspaceId: one.id, userId: inTwo.id });
    await addProjectMember(two.projectIds[0], inTwo.id);
    expect((await api.post(`/workspaces/${two.id}/members`, { userId: inTwo.id }, asKey)).status).toBe(200);
    expect((await api.post(`/workspaces/${two.id}/members`, { userId: onlyInOne.id }, { token: creator.token })).status).toBe(200);
  });
});

describe('workspace members', () => {
  it('lists, adds and removes members; access follows at once', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    const created = await api.post(
      '/users',
      { email: 'member@example.test', name: 'Member', password: 'long-enough-pw', permissions: ['workspace.read'] },
      { token: me.token },
    );
    const memberToken = await login(api, { email: 'member@example.test', password: 'long-enough-pw' });
    expectErrorBody(await api.get(`/workspaces/${ws.id}`, { token: memberToken }), 404, 'NOT_FOUND');

    const added = await api.post(`/workspaces/${ws.id}/members`, { userId: created.body.id }, { token: me.token });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      userId: created.body.id,
      email: 'member@example.test',
      name: 'Member',
      createdAt: expect.stringMatching(ISO),
    });
    expect((await api.get(`/workspaces/${ws.id}`, { token: memberToken })).status).toBe(200);

    const list = await api.get(`/workspaces/${ws.id}/members`, { token: me.token });
    expect(list.status).toBe(200);
    expectNoSecrets(list);
    expect(list.body.map((m: { userId: string }) => m.userId)).toEqual([me.id, created.body.id].sort());
    expect(Object.keys(list.body[0]).sort()).toEqual(['createdAt', 'email', 'name', 'userId']);

    const removed = await api.del(`/workspaces/${ws.id}/members/${created.body.id}`, { token: me.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });
    expectErrorBody(await api.get(`/workspaces/${ws.id}`, { token: memberToken }), 404, 'NOT_FOUND');
  });

  it('adding: 409 for an existing member, 404 for unknown, unseen or inactive users, 400 for a bad body', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    const stranger = await buildUser();
    const inactive = (
      await api.post(
        '/users',
        { email: 'gone@example.test', name: 'Gone', password: 'long-enough-pw', permissions: [] },
        { token: me.token },
      )
    ).body;
    await User.update({ isActive: false }, { where: { id: inactive.id } });
    await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
    const url = `/workspaces/${ws.id}/members`;
    expectErrorBody(await api.post(url, { userId: me.id }, { token: me.token }), 409, 'CONFLICT');
    expectErrorBody(await api.post(url, { userId: '00000000-0000-4000-8000-000000000000' }, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(url, { userId: stranger.id }, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(url, { userId: inactive.id }, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(url, { userId: 'nope' }, { token: me.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.post(url, { userId: me.id, role: 'ADMIN' }, { token: me.token }), 400, 'BAD_REQUEST');
    expect(await WorkspaceMember.count({ where: { workspaceId: ws.id } })).toBe(1);
  });

  it('removing: 404 for a non-member, 409 for the last member', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    const other = await buildUser();
    expectErrorBody(await api.del(`/workspaces/${ws.id}/members/${other.id}`, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/workspaces/${ws.id}/members/${me.id}`, { token: me.token }), 409, 'CONFLICT');
  });

  it('another workspace is a 404 on every member route; workspace.edit is needed first (403)', async () => {
    const mine = await buildWorkspace();
    const colleague = await buildUser();
    const foreign = await buildWorkspace({ members: [colleague.id] });
    const me = await actor(api, { workspaceId: mine.id });
    await WorkspaceMember.create({ workspaceId: mine.id, userId: colleague.id });
    expectErrorBody(await api.get(`/workspaces/${foreign.id}/members`, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(`/workspaces/${foreign.id}/members`, { userId: me.id }, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/workspaces/${foreign.id}/members/${colleague.id}`, { token: me.token }), 404, 'NOT_FOUND');
    const reader = await actor(api, { permissions: ['workspace.read'], workspaceId: mine.id });
    expectErrorBody(await api.get(`/workspaces/${mine.id}/members`, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post(`/workspaces/${foreign.id}/members`, { userId: reader.id }, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del(`/workspaces/${mine.id}/members/${colleague.id}`, { token: reader.token }), 403, 'FORBIDDEN');
    expect(await WorkspaceMember.count({ where: { workspaceId: foreign.id } })).toBe(1);
  });
});

describe('GET /entry-sources', () => {
  it('needs membership of the named workspace (403) and a workspaceId (400)', async () => {
    const ws = await buildWorkspace();
    const foreign = await buildWorkspace();
    const me = await actor(api, { permissions: [], workspaceId: ws.id });
    const res = await api.get('/entry-sources', { token: me.token, query: { workspaceId: ws.id } });
    expect(res.status).toBe(200);
    expect(res.body.map((s: { kind: string }) => s.kind)).toEqual(['MANUAL']);
    await EntrySource.create({ workspaceId: ws.id, kind: 'INTEGRATION', name: 'Shop', integrationId: null });
    expect(
      (await api.get('/entry-sources', { token: me.token, query: { workspaceId: ws.id } })).body.map((s: { kind: string }) => s.kind),
    ).toEqual(['MANUAL', 'INTEGRATION']);
    expectErrorBody(await api.get('/entry-sources', { token: me.token, query: { workspaceId: foreign.id } }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/entry-sources', { token: me.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.get('/entry-sources', { token: me.token, query: { workspaceId: 'x' } }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.get('/entry-sources', { query: { workspaceId: ws.id } }), 401, 'UNAUTHORIZED');
  });
});
