import { beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../shared/permissions.js';
import { WorkspaceMember } from '../../server/db/models/index.js';
import {
  actor,
  addProjectMember,
  buildUser,
  buildWorkspace,
  login,
  createEntry,
  entryWorld,
  entryWithWorld,
  png,
  requested,
  upload,
  uploaded,
} from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { approve, documentRowCount, download, fulfil, reject } from './helpers.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

describe('who reaches documents (CONTRACT §2, §4, §6)', () => {
  it("a caller outside the entry's workspace gets 404 on every document operation", async () => {
    const { w, entry } = await entryWithWorld(api);
    const up = await uploaded(w, entry.id);
    const req = await requested(w, entry.id);
    const other = await entryWorld(api); // another workspace, every permission
    const outsider = { ...w, token: other.token };
    const before = await documentRowCount('entry_id = :id', { id: entry.id });

    expectErrorBody(await api.get(`/entries/${entry.id}/documents`, { token: other.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get(`/entries/${entry.id}/documents/${up.id}`, { token: other.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get(`/entries/${entry.id}/documents/${up.id}/download`, { token: other.token }), 404, 'NOT_FOUND');
    expectErrorBody(
      await api.post(`/entries/${entry.id}/documents/request`, { documentName: 'x', documentType: 'BASIS' }, { token: other.token }),
      404,
      'NOT_FOUND',
    );
    expectErrorBody(await approve(outsider, entry.id, up.id), 404, 'NOT_FOUND');
    expectErrorBody(await reject(outsider, entry.id, up.id, 'no'), 404, 'NOT_FOUND');
    // without workspaceId on the fulfil, the entry itself is what is not found
    expectErrorBody(await fulfil(outsider, entry.id, req.id, { bytes: png() }), 404, 'NOT_FOUND');
    // naming their own workspace: a member of it, but the entry is not in it
    expectErrorBody(await upload(outsider, entry.id, { bytes: png(), workspaceId: other.workspaceId }), 404, 'NOT_FOUND');
    expectErrorBody(await fulfil(outsider, entry.id, req.id, { bytes: png(), workspaceId: other.workspaceId }), 404, 'NOT_FOUND');
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(before);
  });

  it('upload: workspaceId required (400); not a member of it → 403; a member whose entry is elsewhere → 404', async () => {
    const { w, entry } = await entryWithWorld(api);
    expectErrorBody(await upload(w, entry.id, { bytes: png(), workspaceId: null }), 400, 'BAD_REQUEST');
    const foreign = await buildWorkspace();
    expectErrorBody(await upload(w, entry.id, { bytes: png(), workspaceId: foreign.id }), 403, 'FORBIDDEN');
    // the same caller, now also a member of the second workspace: the entry is not in it → 404
    await WorkspaceMember.create({ workspaceId: foreign.id, userId: w.userId });
    await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
    expectErrorBody(await upload(w, entry.id, { bytes: png(), workspaceId: foreign.id }), 404, 'NOT_FOUND');
    const req = await requested(w, entry.id);
    expectErrorBody(await fulfil(w, entry.id, req.id, { bytes: png(), workspaceId: foreign.id }), 404, 'NOT_FOUND');
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(1);
    expect((await upload(w, entry.id, { bytes: png(), workspaceId: w.workspaceId })).status).toBe(200);
  });

  it('permission comes before membership: 403 even for a foreign entry', async () => {
    const { w, entry } = await entryWithWorld(api);
    const up = await uploaded(w, entry.id);
    const stranger = await actor(api, { permissions: PERMISSIONS.filter((p) => p !== 'entry.create' && p !== 'entry.review') });
    const s = { ...w, token: stranger.token };
    expectErrorBody(await upload(s, entry.id, { bytes: png() }), 403, 'FORBIDDEN');
    expectErrorBody(await approve(s, entry.id, up.id), 403, 'FORBIDDEN');
    expectErrorBody(await reject(s, entry.id, up.id, 'x'), 403, 'FORBIDDEN');
  });

  it('a project member reaches the documents of entries in that project only', async () => {
    const w = await entryWorld(api);
    const ws = await buildWorkspace({ projects: 2 });
    await WorkspaceMember.create({ workspaceId: ws.id, userId: w.userId });
    await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
    const world = { ...w, workspaceId: ws.id, projectId: ws.projectIds[0] };
    const parties = { fromPartyId: undefined, toPartyId: undefined }; // the world's parties belong to its first workspace
    const mine = await createEntry(world, { projectId: ws.projectIds[0], ...parties });
    const theirs = await createEntry(world, { projectId: ws.projectIds[1], ...parties });
    const theirDoc = await uploaded(world, theirs.id);

    const user = await buildUser();
    await addProjectMember(ws.projectIds[0], user.id);
    const member = { ...world, token: await login(api, user), userId: user.id };

    const doc = await uploaded(member, mine.id, { workspaceId: ws.id });
    expect(doc.uploadedBy).toBe(user.id);
    expect((await api.get(`/entries/${mine.id}/documents`, { token: member.token })).body).toHaveLength(1);
    expect((await approve(member, mine.id, doc.id)).status).toBe(200);
    expect((await download(api, member.token, mine.id, doc.id)).status).toBe(200);

    expectErrorBody(await upload(member, theirs.id, { bytes: png(), workspaceId: ws.id }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get(`/entries/${theirs.id}/documents`, { token: member.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get(`/entries/${theirs.id}/documents/${theirDoc.id}`, { token: member.token }), 404, 'NOT_FOUND');
    expectErrorBody(await approve(member, theirs.id, theirDoc.id), 404, 'NOT_FOUND');
  });

  it('a document is only found under its own entry', async () => {
    const { w, entry } = await entryWithWorld(api);
    const other = await createEntry(w);
    const doc = await uploaded(w, entry.id);
    expectErrorBody(await api.get(`/entries/${other.id}/documents/${doc.id}`, { token: w.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get(`/entries/${other.id}/documents/${doc.id}/download`, { token: w.token }), 404, 'NOT_FOUND');
    expectErrorBody(await approve(w, other.id, doc.id), 404, 'NOT_FOUND');
    expectErrorBody(await reject(w, other.id, doc.id, 'x'), 404, 'NOT_FOUND');
    expectErrorBody(await fulfil(w, other.id, doc.id, { bytes: png() }), 404, 'NOT_FOUND');
    expect((await api.get(`/entries/${other.id}/documents`, { token: w.token })).body).toEqual([]);
  });

  it('every operation needs a valid token (401)', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await uploaded(w, entry.id);
    const base = `/entries/${entry.id}/documents`;
    for (const headers of [{}, { Authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
      const call = (method: string, path: string, rawBody?: FormData) =>
        api.request(method, path, { headers, rawBody, query: { workspaceId: w.workspaceId } });
      const multipart = () => {
        const fd = new FormData();
        fd.append('documentType', 'BASIS');
        fd.append('file', new Blob([new Uint8Array(png())]), 'a.png');
        return fd;
      };
      expectErrorBody(await call('GET', base), 401, 'UNAUTHORIZED');
      expectErrorBody(await call('GET', `${base}/${doc.id}`), 401, 'UNAUTHORIZED');
      expectErrorBody(await call('GET', `${base}/${doc.id}/download`), 401, 'UNAUTHORIZED');
      expectErrorBody(await call('POST', `${base}/upload`, multipart()), 401, 'UNAUTHORIZED');
      expectErrorBody(await call('POST', `${base}/${doc.id}/fulfill`, multipart()), 401, 'UNAUTHORIZED');
      expectErrorBody(await call('PATCH', `${base}/${doc.id}/approve`), 401, 'UNAUTHORIZED');
    }
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(1);
  });

  it('unknown entries are 404 everywhere', async () => {
    const { w } = await entryWithWorld(api);
    const id = 987_654_321;
    const doc = '00000000-0000-4000-8000-000000000000';
    expectErrorBody(await api.get(`/entries/${id}/documents`, { token: w.token }), 404, 'NOT_FOUND');
    expectErrorBody(await upload(w, id, { bytes: png() }), 404, 'NOT_FOUND');
    expectErrorBody(await approve(w, id, doc), 404, 'NOT_FOUND');
  });
});
