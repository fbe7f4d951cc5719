import { beforeAll, describe, expect, it } from 'vitest';
import { User, WorkspaceMember } from '../../server/db/models/index.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';
import { actor, addProjectMember, buildWorkspace, login, PASSWORD } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

async function join(workspaceId: number, userId: string) {
  await WorkspaceMember.create({ workspaceId, userId });
  await sessionCache.settled();
}

/** A victim in workspaces A and B, a caller with every permission in B only (CONTRACT §4). */
async function twoWorkspaces() {
  const a = await buildWorkspace();
  const b = await buildWorkspace();
  const victim = await actor(api, { permissions: ['entry.create'], workspaceId: a.id });
  await join(b.id, victim.id);
  const mallory = await actor(api, { workspaceId: b.id });
  return { a, b, victim, mallory };
}

async function expectUnchanged(victim: { id: string; email: string; token: string }, before: User) {
  const row = (await User.findByPk(victim.id))!;
  expect({ name: row.name, permissions: row.permissions, isActive: row.isActive, hash: row.passwordHash }).toEqual({
    name: before.name,
    permissions: before.permissions,
    isActive: before.isActive,
    hash: before.passwordHash,
  });
  expect((await api.get('/auth/me', { token: victim.token })).status).toBe(200);
  expect(await login(api, { email: victim.email, password: PASSWORD })).toEqual(expect.any(String));
}

describe('changing a user shared with a workspace the caller is not in', () => {
  it('refuses a password reset, permission change, rename and deactivation (403) and changes nothing', async () => {
    const { a, victim, mallory } = await twoWorkspaces();
    const before = (await User.findByPk(victim.id))!;
    const url = `/users/${victim.id}`;
    expectErrorBody(await api.get(`/entries?workspaceId=${a.id}`, { token: mallory.token }), 403, 'FORBIDDEN');
    for (const body of [
      { password: 'mallorywins123' },
      { permissions: ['entry.create', 'entry.void', 'user.edit'] },
      { name: 'Owned' },
      { isActive: false },
    ]) {
      expectErrorBody(await api.patch(url, body, { token: mallory.token }), 403, 'FORBIDDEN');
    }
    expectErrorBody(await api.del(url, { token: mallory.token }), 403, 'FORBIDDEN');
    await expectUnchanged(victim, before);
    expectErrorBody(await api.post('/auth/login', { email: victim.email, password: 'mallorywins123' }), 401, 'UNAUTHORIZED');
  });

  it('refuses when the victim is a project member of a project the caller does not reach', async () => {
    const a = await buildWorkspace({ projects: 2 });
    const b = await buildWorkspace();
    const victim = await actor(api, { permissions: ['entry.create'], workspaceId: b.id });
    await addProjectMember(a.projectIds[1], victim.id);
    const mallory = await actor(api, { workspaceId: b.id });
    await addProjectMember(a.projectIds[0], mallory.id); // reaches another project of A only
    await sessionCache.settled();
    const before = (await User.findByPk(victim.id))!;
    expectErrorBody(await api.patch(`/users/${victim.id}`, { password: 'mallorywins123' }, { token: mallory.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del(`/users/${victim.id}`, { token: mallory.token }), 403, 'FORBIDDEN');
    await expectUnchanged(victim, before);

    // reaching that project as its member (not a member of A) is enough for a project membership
    await addProjectMember(a.projectIds[1], mallory.id);
    await sessionCache.settled();
    expect((await api.patch(`/users/${victim.id}`, { name: 'Renamed' }, { token: mallory.token })).status).toBe(200);
  });

  it('allows the change once the caller is a member of every workspace of the user', async () => {
    const { a, victim, mallory } = await twoWorkspaces();
    await join(a.id, mallory.id);
    const res = await api.patch(`/users/${victim.id}`, { password: 'a-reset-password' }, { token: mallory.token });
    expect(res.status).toBe(200);
    expectErrorBody(await api.get('/auth/me', { token: victim.token }), 401, 'UNAUTHORIZED');
    expect(await login(api, { email: victim.email, password: 'a-reset-password' })).toEqual(expect.any(String));
    expect((await api.del(`/users/${victim.id}`, { token: mallory.token })).status).toBe(200);
  });

  it("a project member of the victim's workspace does not even see a workspace member (404)", async () => {
    const a = await buildWorkspace();
    const victim = await actor(api, { permissions: ['entry.create'], workspaceId: a.id });
    const mallory = await actor(api);
    await addProjectMember(a.projectIds[0], mallory.id);
    await addProjectMember(a.projectIds[0], victim.id);
    await sessionCache.settled();
    expectErrorBody(await api.patch(`/users/${victim.id}`, { password: 'mallorywins123' }, { token: mallory.token }), 404, 'NOT_FOUND');
    expect(await login(api, { email: victim.email, password: PASSWORD })).toEqual(expect.any(String));
  });
});
