import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ProjectMember, User, WorkspaceMember } from '../../../server/db/models/index.js';
import { sessionCache } from '../../../server/domains/auth/authenticate.js';
import { entryWorld, type EntryWorld, actor, addProjectMember } from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api, type ApiResponse } from '../../support/http.js';

/**
 * Issue 28, holes 4 and 5 (CONTRACT §1): a replay is served only to a caller who could make the
 * request now (the checks run before anything is replayed), and a tRPC replay is byte for byte the
 * first response.
 */
let api: Api;
let w: EntryWorld;

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});

const newKey = () => `k-${randomBytes(6).toString('hex')}`;
const entryBody = (projectId: number, reference: string) => ({
  projectId,
  entryType: 'EXPENSE',
  amountCents: 2_500,
  baseCurrency: 'USD',
  entryDate: '2026-02-11',
  reference,
});

function expectNotReplayed(res: ApiResponse): void {
  expect(res.headers.get('idempotency-replayed')).toBeNull();
}

/** A change of a user or membership made straight in the database reaches the auth cache through its trigger. */
const settle = () => sessionCache.settled();

describe('REST: a replay needs the access the request needed', () => {
  it('a caller that lost the permission gets 403, then the replay again once it is given back', async () => {
    const me = await actor(api, { workspaceId: w.workspaceId });
    const key = newKey();
    const send = () => api.post('/entries', entryBody(w.projectId, key), { token: me.token, headers: { 'Idempotency-Key': key } });
    const first = await send();
    expect(first.status).toBe(200);
    const replay = await send();
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);

    const user = (await User.findByPk(me.id))!;
    await user.update({ permissions: user.permissions.filter((p) => p !== 'entry.create') });
    await settle();
    const refused = await send();
    expectErrorBody(refused, 403, 'FORBIDDEN');
    expectNotReplayed(refused);

    await user.update({ permissions: [...user.permissions, 'entry.create'] });
    await settle();
    expect((await send()).text).toBe(first.text);
  });

  it('a caller that lost the workspace answers as a new call would: 404 for the project it names', async () => {
    const me = await actor(api, { workspaceId: w.workspaceId });
    const key = newKey();
    const send = (k: string) => api.post('/entries', entryBody(w.projectId, k), { token: me.token, headers: { 'Idempotency-Key': k } });
    expect((await send(key)).status).toBe(200);
    await WorkspaceMember.destroy({ where: { workspaceId: w.workspaceId, userId: me.id } });
    await settle();
    const refused = await send(key);
    expectErrorBody(refused, 404, 'NOT_FOUND');
    expectNotReplayed(refused);
    expectErrorBody(await send(newKey()), 404, 'NOT_FOUND'); // what a new call answers
  });

  it('a named workspace the caller left answers 403 (POST /tags)', async () => {
    const me = await actor(api, { workspaceId: w.workspaceId });
    const key = newKey();
    const send = () =>
      api.post('/tags', { workspaceId: w.workspaceId, name: key }, { token: me.token, headers: { 'Idempotency-Key': key } });
    expect((await send()).status).toBe(200);
    await WorkspaceMember.destroy({ where: { workspaceId: w.workspaceId, userId: me.id } });
    await settle();
    const refused = await send();
    expectErrorBody(refused, 403, 'FORBIDDEN');
    expectNotReplayed(refused);
  });

  it('a project member removed from the project gets 404', async () => {
    const world = await entryWorld(api, { projects: 2 });
    const me = await actor(api);
    await addProjectMember(world.projectIds[1], me.id);
    const key = newKey();
    const send = () => api.post('/entries', entryBody(world.projectIds[1], key), { token: me.token, headers: { 'Idempotency-Key': key } });
    expect((await send()).status).toBe(200);
    expect((await send()).headers.get('idempotency-replayed')).toBe('true');
    await ProjectMember.destroy({ where: { projectId: world.projectIds[1], userId: me.id } });
    await settle();
    const refused = await send();
    expectErrorBody(refused, 404, 'NOT_FOUND');
    expectNotReplayed(refused);
  });

  it('a deactivated user gets 401', async () => {
    const me = await actor(api, { workspaceId: w.workspaceId });
    const key = newKey();
    const send = () => api.post('/entries', entryBody(w.projectId, key), { token: me.token, headers: { 'Idempotency-Key': key } });
    expect((await send()).status).toBe(200);
    await User.update({ isActive: false }, { where: { id: me.id } });
    await settle();
    const refused = await send();
    expectErrorBody(refused, 401, 'UNAUTHORIZED');
    expectNotReplayed(refused);
  });
});

describe('tRPC: replays', () => {
  const trpcCreate = (token: string, key: string, projectId = w.projectId) =>
    api.post('/trpc/entries.create', entryBody(projectId, key), { token, headers: { 'Idempotency-Key': key } });

  it('are byte for byte the first response, with Idempotency-Replayed', async () => {
    const me = await actor(api, { workspaceId: w.workspaceId });
    const key = newKey();
    const first = await trpcCreate(me.token, key);
    expect(first.status).toBe(200);
    expect(first.body.result.data.reference).toBe(key);
    const replay = await trpcCreate(me.token, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
  });

  it('a caller that lost the permission gets the tRPC error envelope with 403', async () => {
    const me = await actor(api, { workspaceId: w.workspaceId });
    const key = newKey();
    expect((await trpcCreate(me.token, key)).status).toBe(200);
    await User.update({ permissions: ['entry.edit'] }, { where: { id: me.id } });
    await settle();
    const refused = await trpcCreate(me.token, key);
    expect(refused.status).toBe(403);
    expectNotReplayed(refused);
    expect(refused.body.error).toMatchObject({
      message: expect.any(String),
      data: { code: 'FORBIDDEN', httpStatus: 403, path: 'entries.create' },
    });
    const fresh = await trpcCreate(me.token, newKey()); // the envelope a new call gets has the same shape
    expect(fresh.status).toBe(403);
    expect(Object.keys(fresh.body.error).sort()).toEqual(Object.keys(refused.body.error).sort());
    expect(fresh.body.error.code).toBe(refused.body.error.code);
  });
});
