import { beforeAll, describe, expect, it } from 'vitest';
import { User, WorkspaceMember } from '../../server/db/models/index.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { actor, addProjectMember, buildUser, buildWorkspace, createKey, login, PASSWORD } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { expectNoSecrets, ids, ISO, sortedIds } from '../support/tenancy.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const NEW_PASSWORD = 'a-brand-new-password';
const newUser = (over: Record<string, unknown> = {}) => ({
  email: `New.User.${Math.random().toString(36).slice(2, 8)}@Example.test`,
  name: 'New User',
  password: NEW_PASSWORD,
  permissions: ['entry.create'],
  ...over,
});

describe('GET /users', () => {
  it('lists the caller, workspace co-members, project members of its workspaces and the users it created, ordered by id', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    const colleague = await buildUser();
    const projectOnly = await buildUser();
    const stranger = await buildUser();
    await buildWorkspace({ members: [colleague.id, stranger.id] });
    await buildWorkspace({ members: [stranger.id] });
    await WorkspaceMember.create({ workspaceId: ws.id, userId: colleague.id });
    await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
    await addProjectMember(ws.projectIds[0], projectOnly.id);
    const created = await api.post('/users', newUser(), { token: me.token });
    expect(created.status).toBe(200);

    const res = await api.get('/users', { token: me.token });
    expect(res.status).toBe(200);
    expectNoSecrets(res);
    const expected = sortedIds([me.id, colleague.id, projectOnly.id, created.body.id]);
    expect(ids(res.body)).toEqual(expected);
    expect(ids(res.body)).not.toContain(stranger.id);
    expect(res.body.find((u: { id: string }) => u.id === me.id)).toEqual({
      id: me.id,
      email: me.email,
      name: 'Test User',
      permissions: [...PERMISSIONS].sort(),
      isActive: true,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
  });

  it('needs user.read', async () => {
    const me = await actor(api, { permissions: ['user.edit'] });
    expectErrorBody(await api.get('/users', { token: me.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/users'), 401, 'UNAUTHORIZED');
  });
});

describe('POST /users', () => {
  it('creates a user with a lower-cased email and a hashed password that works for login', async () => {
    const me = await actor(api);
    const body = newUser({ permissions: ['entry.edit', 'entry.create', 'entry.create'] });
    const res = await api.post('/users', body, { token: me.token });
    expect(res.status).toBe(200);
    expectNoSecrets(res);
    expect(res.body).toEqual({
      id: expect.any(String),
      email: body.email.toLowerCase(),
      name: 'New User',
      permissions: ['entry.create', 'entry.edit'],
      isActive: true,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const row = await User.findByPk(res.body.id);
    expect(row!.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row!.createdBy).toBe(me.id);
    expect(await login(api, { email: body.email, password: NEW_PASSWORD })).toEqual(expect.any(String));
  });

  it('refuses a duplicate email whatever its case (409)', async () => {
    const me = await actor(api);
    const existing = await buildUser();
    expectErrorBody(await api.post('/users', newUser({ email: existing.email.toUpperCase() }), { token: me.token }), 409, 'CONFLICT');
  });

  it('validates the body (400): short password, bad email, unknown permission, unknown field, missing field', async () => {
    const me = await actor(api);
    const bad = [
      newUser({ password: 'short-pw' }),
      newUser({ email: 'not-an-email' }),
      newUser({ permissions: ['root'] }),
      newUser({ isAdmin: true }),
      newUser({ passwordHash: '$argon2id$x' }),
      { email: 'x@example.test', password: NEW_PASSWORD },
    ];
    for (const body of bad) {
      const res = await api.post('/users', body, { token: me.token });
      expectErrorBody(res, 400, 'BAD_REQUEST');
      expect(res.body.issues.length).toBeGreaterThan(0);
    }
  });

  it('needs user.edit (403)', async () => {
    const me = await actor(api, { permissions: ['user.read', 'user.delete'] });
    expectErrorBody(await api.post('/users', newUser({ permissions: [] }), { token: me.token }), 403, 'FORBIDDEN');
  });

  it('grants only permissions the caller holds (403 otherwise)', async () => {
    const me = await actor(api, { permissions: ['user.edit', 'entry.create'] });
    expectErrorBody(
      await api.post('/users', newUser({ permissions: ['entry.create', 'entry.void'] }), { token: me.token }),
      403,
      'FORBIDDEN',
    );
    expectErrorBody(await api.post('/users', newUser({ permissions: ['user.delete'] }), { token: me.token }), 403, 'FORBIDDEN');
    const ok = await api.post('/users', newUser({ permissions: ['entry.create', 'user.edit'] }), { token: me.token });
    expect(ok.status).toBe(200);
  });
});

describe('PATCH /users/{id}', () => {
  it('changes name and permissions', async () => {
    const me = await actor(api);
    const created = (await api.post('/users', newUser(), { token: me.token })).body;
    const res = await api.patch(
      `/users/${created.id}`,
      { name: 'Renamed', permissions: ['entry.void', 'entry.edit'] },
      { token: me.token },
    );
    expect(res.status).toBe(200);
    expectNoSecrets(res);
    expect(res.body).toMatchObject({ id: created.id, name: 'Renamed', permissions: ['entry.edit', 'entry.void'], isActive: true });
  });

  it('adds only permissions the caller holds, and takes away only those too; keeping others is fine', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api, { permissions: ['user.edit', 'entry.create'], workspaceId: ws.id });
    const target = await actor(api, { permissions: ['entry.create', 'entry.void'], workspaceId: ws.id });
    const url = `/users/${target.id}`;
    expectErrorBody(
      await api.patch(url, { permissions: ['entry.create', 'entry.void', 'user.delete'] }, { token: me.token }),
      403,
      'FORBIDDEN',
    );
    expectErrorBody(await api.patch(url, { permissions: ['entry.create'] }, { token: me.token }), 403, 'FORBIDDEN');
    expectErrorBody(
      await api.patch(`/users/${me.id}`, { permissions: ['user.edit', 'entry.create', 'entry.void'] }, { token: me.token }),
      403,
      'FORBIDDEN',
    );
    const ok = await api.patch(url, { name: 'Still Void', permissions: ['entry.void'] }, { token: me.token });
    expect(ok.status).toBe(200);
    expect(ok.body.permissions).toEqual(['entry.void']);
    expect((await User.findByPk(target.id))!.permissions).toEqual(['entry.void']);
  });

  it('a password change revokes the sessions of the target and the new password works', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    const target = await actor(api, { permissions: ['entry.create'], workspaceId: ws.id });
    const res = await api.patch(`/users/${target.id}`, { password: NEW_PASSWORD }, { token: me.token });
    expect(res.status).toBe(200);
    expectNoSecrets(res);
    expectErrorBody(await api.get('/auth/me', { token: target.token }), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.post('/auth/login', { email: target.email, password: PASSWORD }), 401, 'UNAUTHORIZED');
    expect(await login(api, { email: target.email, password: NEW_PASSWORD })).toEqual(expect.any(String));
  });

  it('changing your own password needs currentPassword, keeps the current session and revokes your others', async () => {
    const me = await actor(api);
    const other = await login(api, me);
    const url = `/users/${me.id}`;
    expectErrorBody(await api.patch(url, { password: NEW_PASSWORD }, { token: me.token }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await api.patch(url, { password: NEW_PASSWORD, currentPassword: 'not-my-password' }, { token: me.token }),
      401,
      'UNAUTHORIZED',
    );
    // neither refusal changed anything nor ended a session
    expect((await api.get('/auth/me', { token: other })).status).toBe(200);
    expect(await login(api, me)).toEqual(expect.any(String));
    const ok = await api.patch(url, { password: NEW_PASSWORD, currentPassword: PASSWORD }, { token: me.token });
    expect(ok.status).toBe(200);
    expectNoSecrets(ok);
    expect((await api.get('/auth/me', { token: me.token })).status).toBe(200);
    expectErrorBody(await api.get('/auth/me', { token: other }), 401, 'UNAUTHORIZED');
    expect(await login(api, { email: me.email, password: NEW_PASSWORD })).toEqual(expect.any(String));
  });

  it('a name change of your own needs no currentPassword', async () => {
    const me = await actor(api);
    const res = await api.patch(`/users/${me.id}`, { name: 'Me Myself' }, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Me Myself');
  });

  it('a user without user.edit changes its own name and password (currentPassword still needed), nothing else', async () => {
    const ws = await buildWorkspace();
    const contractor = await actor(api, { permissions: ['entry.create', 'workspace.read'], workspaceId: ws.id });
    const colleague = await actor(api, { permissions: ['entry.create'], workspaceId: ws.id });
    const other = await login(api, contractor);
    const url = `/users/${contractor.id}`;
    const as = { token: contractor.token };
    const renamed = await api.patch(url, { name: 'Contractor Renamed' }, as);
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ id: contractor.id, name: 'Contractor Renamed', permissions: ['entry.create', 'workspace.read'] });
    expectErrorBody(await api.patch(url, { password: NEW_PASSWORD }, as), 400, 'BAD_REQUEST');
    expectErrorBody(await api.patch(url, { password: NEW_PASSWORD, currentPassword: 'not-my-password' }, as), 401, 'UNAUTHORIZED');
    const changed = await api.patch(url, { name: 'Contractor', password: NEW_PASSWORD, currentPassword: PASSWORD }, as);
    expect(changed.status, changed.text).toBe(200);
    expectNoSecrets(changed);
    expect((await api.get('/auth/me', as)).status).toBe(200);
    expectErrorBody(await api.get('/auth/me', { token: other }), 401, 'UNAUTHORIZED');
    expect(await login(api, { email: contractor.email, password: NEW_PASSWORD })).toEqual(expect.any(String));
    // its own permissions or active flag, or anyone else: user.edit as before (403 before anything else)
    expectErrorBody(await api.patch(url, { permissions: ['entry.create', 'workspace.read', 'user.edit'] }, as), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(url, { permissions: ['entry.create'] }, as), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(url, { isActive: false }, as), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/users/${colleague.id}`, { name: 'Hijacked' }, as), 403, 'FORBIDDEN');
    // an unknown field is still a 400
    expectErrorBody(await api.patch(url, { email: 'new@example.test' }, as), 400, 'BAD_REQUEST');
    const stored = (await User.findByPk(contractor.id))!;
    expect(stored.permissions).toEqual(['entry.create', 'workspace.read']);
    expect(stored.isActive).toBe(true);
    expect((await User.findByPk(colleague.id))!.name).not.toBe('Hijacked');
  });

  it('an API key never changes its creator through the own-profile exemption (keys hold no user.*)', async () => {
    const ws = await buildWorkspace();
    const creator = await actor(api, { workspaceId: ws.id });
    const key = await createKey(api, creator.token, { workspaceId: ws.id, permissions: ['workspace.read'] });
    const asKey = { token: key.apiKey };
    expectErrorBody(await api.patch(`/users/${creator.id}`, { name: 'Renamed by app' }, asKey), 403, 'FORBIDDEN');
    expectErrorBody(
      await api.patch(`/users/${creator.id}`, { password: NEW_PASSWORD, currentPassword: PASSWORD }, asKey),
      403,
      'FORBIDDEN',
    );
    expect((await User.findByPk(creator.id))!.name).toBe('Test User');
  });

  it('isActive:false deactivates and revokes sessions; deactivating yourself is a 409', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    const target = await actor(api, { permissions: ['entry.create'], workspaceId: ws.id });
    const res = await api.patch(`/users/${target.id}`, { isActive: false }, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body.isActive).toBe(false);
    expectErrorBody(await api.get('/auth/me', { token: target.token }), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.patch(`/users/${me.id}`, { isActive: false }, { token: me.token }), 409, 'CONFLICT');
    const back = await api.patch(`/users/${target.id}`, { isActive: true }, { token: me.token });
    expect(back.body.isActive).toBe(true);
    expect(await login(api, target)).toEqual(expect.any(String));
  });

  it('refuses to reset the password of, or deactivate, a user holding permissions the caller lacks (403)', async () => {
    const ws = await buildWorkspace();
    const admin = await actor(api, { workspaceId: ws.id });
    const manager = await actor(api, { permissions: ['user.edit', 'user.delete', 'user.read'], workspaceId: ws.id });
    expectErrorBody(await api.patch(`/users/${admin.id}`, { password: NEW_PASSWORD }, { token: manager.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/users/${admin.id}`, { isActive: false }, { token: manager.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del(`/users/${admin.id}`, { token: manager.token }), 403, 'FORBIDDEN');
    expect((await api.patch(`/users/${admin.id}`, { name: 'Boss' }, { token: manager.token })).status).toBe(200);
    expect((await api.get('/auth/me', { token: admin.token })).status).toBe(200);
  });

  it('answers 404 for a user the caller cannot see, 400 for a bad id or unknown field, 403 without user.edit', async () => {
    const me = await actor(api);
    const stranger = await buildUser();
    expectErrorBody(await api.patch(`/users/${stranger.id}`, { name: 'Mine now' }, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.patch('/users/00000000-0000-4000-8000-000000000000', { name: 'x' }, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.patch('/users/not-a-uuid', { name: 'x' }, { token: me.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.patch(`/users/${me.id}`, { email: 'other@example.test' }, { token: me.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.patch(`/users/${me.id}`, { password: 'short' }, { token: me.token }), 400, 'BAD_REQUEST');
    const reader = await actor(api, { permissions: ['user.read'] });
    expectErrorBody(await api.patch(`/users/${stranger.id}`, { name: 'x' }, { token: reader.token }), 403, 'FORBIDDEN');
    expect((await User.findByPk(stranger.id))!.name).toBe('Test User');
  });
});

describe('DELETE /users/{id}', () => {
  it('deactivates the user and revokes its sessions', async () => {
    const me = await actor(api);
    const created = (await api.post('/users', newUser(), { token: me.token })).body;
    const token = await login(api, { email: created.email, password: NEW_PASSWORD });
    const res = await api.del(`/users/${created.id}`, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expectErrorBody(await api.get('/auth/me', { token }), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.post('/auth/refresh', undefined, { token }), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.post('/auth/login', { email: created.email, password: NEW_PASSWORD }), 401, 'UNAUTHORIZED');
    const listed = (await api.get('/users', { token: me.token })).body.find((u: { id: string }) => u.id === created.id);
    expect(listed.isActive).toBe(false);
  });

  it('refuses yourself (409), unseen users (404) and callers without user.delete (403)', async () => {
    const me = await actor(api);
    const stranger = await buildUser();
    expectErrorBody(await api.del(`/users/${me.id}`, { token: me.token }), 409, 'CONFLICT');
    expectErrorBody(await api.del(`/users/${stranger.id}`, { token: me.token }), 404, 'NOT_FOUND');
    const editor = await actor(api, { permissions: ['user.edit', 'user.read'] });
    expectErrorBody(await api.del(`/users/${stranger.id}`, { token: editor.token }), 403, 'FORBIDDEN');
    expect((await User.findByPk(stranger.id))!.isActive).toBe(true);
  });
});
