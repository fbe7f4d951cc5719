import { beforeAll, describe, expect, it } from 'vitest';
import { Project, ProjectMember, User, WorkspaceMember } from '../../server/db/models/index.js';
import { actor, addProjectMember, buildUser, buildWorkspace, login } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { expectNoSecrets, ids, ISO } from '../support/tenancy.js';
import { messageProblem } from '../support/error-messages.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

describe('POST /projects', () => {
  it('creates a project in a workspace of the caller', async () => {
    const ws = await buildWorkspace({ projects: 0 });
    const me = await actor(api, { workspaceId: ws.id });
    const res = await api.post('/projects', { workspaceId: ws.id, name: 'Website', code: 'WEB' }, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      workspaceId: ws.id,
      name: 'Website',
      code: 'WEB',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const noCode = await api.post('/projects', { workspaceId: ws.id, name: 'Misc' }, { token: me.token });
    expect(noCode.body.code).toBeNull();
  });

  it('codes are unique per workspace (409), the same code elsewhere is fine', async () => {
    const ws = await buildWorkspace({ projects: 0 });
    const other = await buildWorkspace({ projects: 0 });
    const me = await actor(api, { workspaceId: ws.id });
    await WorkspaceMember.create({ workspaceId: other.id, userId: me.id });
    expect((await api.post('/projects', { workspaceId: ws.id, name: 'A', code: 'DUP' }, { token: me.token })).status).toBe(200);
    expectErrorBody(await api.post('/projects', { workspaceId: ws.id, name: 'B', code: 'DUP' }, { token: me.token }), 409, 'CONFLICT');
    expect((await api.post('/projects', { workspaceId: other.id, name: 'C', code: 'DUP' }, { token: me.token })).status).toBe(200);
    // the caller's code is quoted in the message, which stays a sentence whatever the code holds (the hard fuzz suite's find)
    const hostile = "'); SELECT pg_sleep(0); --";
    expect((await api.post('/projects', { workspaceId: ws.id, name: 'D', code: hostile }, { token: me.token })).status).toBe(200);
    const again = await api.post('/projects', { workspaceId: ws.id, name: 'E', code: hostile }, { token: me.token });
    expectErrorBody(again, 409, 'CONFLICT');
    expect(again.body.message).toBe(`Project code "'); SELECT pg_sleep(0); --" is already used in this workspace`);
    expect(messageProblem(again.body.message)).toBeNull();
  });

  it('403 for a foreign workspaceId, for a project-only member, and without workspace.edit; 400 for bad bodies', async () => {
    const ws = await buildWorkspace();
    const foreign = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    expectErrorBody(await api.post('/projects', { workspaceId: foreign.id, name: 'X' }, { token: me.token }), 403, 'FORBIDDEN');
    const projectOnly = await actor(api);
    await addProjectMember(ws.projectIds[0], projectOnly.id);
    expectErrorBody(await api.post('/projects', { workspaceId: ws.id, name: 'X' }, { token: projectOnly.token }), 403, 'FORBIDDEN');
    const reader = await actor(api, { permissions: ['workspace.read'], workspaceId: ws.id });
    expectErrorBody(await api.post('/projects', { workspaceId: ws.id, name: 'X' }, { token: reader.token }), 403, 'FORBIDDEN');
    for (const body of [
      { name: 'X' },
      { workspaceId: ws.id },
      { workspaceId: ws.id, name: 'X', budget: 1 },
      { workspaceId: ws.id, name: 'X', code: 'c'.repeat(51) },
    ]) {
      expectErrorBody(await api.post('/projects', body, { token: me.token }), 400, 'BAD_REQUEST');
    }
    expect(await Project.count({ where: { workspaceId: foreign.id } })).toBe(1);
  });
});

describe('GET /projects', () => {
  it('a workspace member sees every project, ordered by id', async () => {
    const ws = await buildWorkspace({ projects: 3 });
    const me = await actor(api, { workspaceId: ws.id });
    const res = await api.get('/projects', { token: me.token, query: { workspaceId: ws.id } });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(ws.projectIds);
  });

  it('a project-only member sees only its own projects', async () => {
    const ws = await buildWorkspace({ projects: 3 });
    const me = await actor(api, { permissions: ['workspace.read'] });
    await addProjectMember(ws.projectIds[2], me.id);
    await addProjectMember(ws.projectIds[0], me.id);
    const res = await api.get('/projects', { token: me.token, query: { workspaceId: ws.id } });
    expect(ids(res.body)).toEqual([ws.projectIds[0], ws.projectIds[2]]);
  });

  it('403 for a foreign workspace or without workspace.read, 400 without a workspaceId', async () => {
    const ws = await buildWorkspace();
    const foreign = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    expectErrorBody(await api.get('/projects', { token: me.token, query: { workspaceId: foreign.id } }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/projects', { token: me.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.get('/projects', { token: me.token, query: { workspaceId: -1 } }), 400, 'BAD_REQUEST');
    const noRead = await actor(api, { permissions: ['workspace.edit'], workspaceId: ws.id });
    expectErrorBody(await api.get('/projects', { token: noRead.token, query: { workspaceId: ws.id } }), 403, 'FORBIDDEN');
  });
});

describe('PATCH /projects/{id}', () => {
  it('renames, recodes and clears the code', async () => {
    const ws = await buildWorkspace({ projects: 1 });
    const me = await actor(api, { workspaceId: ws.id });
    const [id] = ws.projectIds;
    const res = await api.patch(`/projects/${id}`, { name: 'Renamed', code: 'NEW' }, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, workspaceId: ws.id, name: 'Renamed', code: 'NEW' });
    expect((await api.patch(`/projects/${id}`, { code: 'NEW' }, { token: me.token })).status).toBe(200);
    expect((await api.patch(`/projects/${id}`, { code: null }, { token: me.token })).body.code).toBeNull();
  });

  it('409 for a code used by another project of the workspace', async () => {
    const ws = await buildWorkspace({ projects: 2 });
    const me = await actor(api, { workspaceId: ws.id });
    expectErrorBody(await api.patch(`/projects/${ws.projectIds[1]}`, { code: 'P1' }, { token: me.token }), 409, 'CONFLICT');
  });

  it("404 for another workspace's project, 403 for a project-only member or without workspace.edit, 400 for unknown fields", async () => {
    const ws = await buildWorkspace();
    const foreign = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    expectErrorBody(await api.patch(`/projects/${foreign.projectIds[0]}`, { name: 'Mine' }, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.patch('/projects/999999', { name: 'Mine' }, { token: me.token }), 404, 'NOT_FOUND');
    const projectOnly = await actor(api);
    await addProjectMember(ws.projectIds[0], projectOnly.id);
    expectErrorBody(await api.patch(`/projects/${ws.projectIds[0]}`, { name: 'X' }, { token: projectOnly.token }), 403, 'FORBIDDEN');
    const reader = await actor(api, { permissions: ['workspace.read'], workspaceId: ws.id });
    expectErrorBody(await api.patch(`/projects/${foreign.projectIds[0]}`, { name: 'X' }, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/projects/${ws.projectIds[0]}`, { workspaceId: foreign.id }, { token: me.token }), 400, 'BAD_REQUEST');
    expect((await Project.findByPk(foreign.projectIds[0]))!.name).toBe('Project 1');
  });
});

describe('project members', () => {
  it('adding gives the user that project only; removing takes it away', async () => {
    const ws = await buildWorkspace({ projects: 2 });
    const me = await actor(api, { workspaceId: ws.id });
    const created = await api.post(
      '/users',
      { email: 'contractor@example.test', name: 'Contractor', password: 'long-enough-pw', permissions: ['workspace.read'] },
      { token: me.token },
    );
    const token = await login(api, { email: 'contractor@example.test', password: 'long-enough-pw' });
    const [first] = ws.projectIds;
    const added = await api.post(`/projects/${first}/members`, { userId: created.body.id }, { token: me.token });
    expect(added.status).toBe(200);
    expectNoSecrets(added);
    expect(added.body).toEqual({
      userId: created.body.id,
      email: 'contractor@example.test',
      name: 'Contractor',
      createdAt: expect.stringMatching(ISO),
    });
    expect(ids((await api.get('/projects', { token, query: { workspaceId: ws.id } })).body)).toEqual([first]);
    expectErrorBody(await api.post(`/projects/${first}/members`, { userId: created.body.id }, { token: me.token }), 409, 'CONFLICT');

    const removed = await api.del(`/projects/${first}/members/${created.body.id}`, { token: me.token });
    expect(removed.body).toEqual({ success: true });
    expectErrorBody(await api.get('/projects', { token, query: { workspaceId: ws.id } }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del(`/projects/${first}/members/${created.body.id}`, { token: me.token }), 404, 'NOT_FOUND');
  });

  it("404 for unseen or inactive users and for another workspace's project; 403 without workspace.edit", async () => {
    const ws = await buildWorkspace();
    const foreign = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    const stranger = await buildUser();
    const mine = (
      await api.post('/users', { email: 'off@example.test', name: 'Off', password: 'long-enough-pw', permissions: [] }, { token: me.token })
    ).body;
    await User.update({ isActive: false }, { where: { id: mine.id } });
    await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
    const url = `/projects/${ws.projectIds[0]}/members`;
    expectErrorBody(await api.post(url, { userId: stranger.id }, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(url, { userId: mine.id }, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(url, { userId: 'x' }, { token: me.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.post(`/projects/${foreign.projectIds[0]}/members`, { userId: me.id }, { token: me.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/projects/${foreign.projectIds[0]}/members/${me.id}`, { token: me.token }), 404, 'NOT_FOUND');
    const reader = await actor(api, { permissions: ['workspace.read'], workspaceId: ws.id });
    expectErrorBody(await api.post(url, { userId: reader.id }, { token: reader.token }), 403, 'FORBIDDEN');
    expect(await ProjectMember.count({ where: { projectId: [ws.projectIds[0], foreign.projectIds[0]] } })).toBe(0);
  });
});
