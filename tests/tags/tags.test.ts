import { beforeAll, describe, expect, it } from 'vitest';
import { Tag, WorkspaceMember } from '../../server/db/models/index.js';
import { actor, buildTag, buildWorkspace } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { ids, ISO } from '../support/tenancy.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

describe('POST /tags', () => {
  it('creates a tag, with or without a colour', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    const res = await api.post('/tags', { workspaceId: ws.id, name: 'Travel', color: '#1f77b4' }, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      workspaceId: ws.id,
      name: 'Travel',
      color: '#1f77b4',
      archivedAt: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect((await api.post('/tags', { workspaceId: ws.id, name: 'Plain' }, { token: me.token })).body.color).toBeNull();
  });

  it('names are unique per workspace ignoring case (409); another workspace may reuse them', async () => {
    const ws = await buildWorkspace();
    const other = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    await WorkspaceMember.create({ workspaceId: other.id, userId: me.id });
    await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
    expect((await api.post('/tags', { workspaceId: ws.id, name: 'Office' }, { token: me.token })).status).toBe(200);
    expectErrorBody(await api.post('/tags', { workspaceId: ws.id, name: 'OFFICE' }, { token: me.token }), 409, 'CONFLICT');
    expectErrorBody(await api.post('/tags', { workspaceId: ws.id, name: ' office ' }, { token: me.token }), 409, 'CONFLICT');
    expect((await api.post('/tags', { workspaceId: other.id, name: 'office' }, { token: me.token })).status).toBe(200);
  });

  it('400 for bad bodies, 403 for a foreign workspaceId or without entry.edit', async () => {
    const ws = await buildWorkspace();
    const foreign = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    for (const body of [
      { workspaceId: ws.id, name: '' },
      { workspaceId: ws.id, name: 'x'.repeat(101) },
      { workspaceId: ws.id, name: 'X', color: 'red' },
      { workspaceId: ws.id, name: 'X', entries: [] },
      { name: 'X' },
    ]) {
      expectErrorBody(await api.post('/tags', body, { token: me.token }), 400, 'BAD_REQUEST');
    }
    expectErrorBody(await api.post('/tags', { workspaceId: foreign.id, name: 'X' }, { token: me.token }), 403, 'FORBIDDEN');
    const creator = await actor(api, { permissions: ['entry.create'], workspaceId: ws.id });
    expectErrorBody(await api.post('/tags', { workspaceId: ws.id, name: 'X' }, { token: creator.token }), 403, 'FORBIDDEN');
  });
});

describe('GET /tags', () => {
  it('lists the workspace tags ordered by id; 403 elsewhere, 400 without workspaceId', async () => {
    const ws = await buildWorkspace();
    const foreign = await buildWorkspace();
    const b = await buildTag(ws.id, { name: 'b' });
    const a = await buildTag(ws.id, { name: 'a' });
    await buildTag(foreign.id);
    const me = await actor(api, { permissions: [], workspaceId: ws.id });
    const res = await api.get('/tags', { token: me.token, query: { workspaceId: ws.id } });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([b.id, a.id]);
    expectErrorBody(await api.get('/tags', { token: me.token, query: { workspaceId: foreign.id } }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/tags', { token: me.token }), 400, 'BAD_REQUEST');
  });
});

describe('PATCH /tags/{id}', () => {
  it('renames (a change of case of its own name is fine) and recolours; null clears the colour', async () => {
    const ws = await buildWorkspace();
    const tag = await buildTag(ws.id, { name: 'travel', color: '#000000' });
    const me = await actor(api, { workspaceId: ws.id });
    const res = await api.patch(`/tags/${tag.id}`, { name: 'Travel', color: '#ffffff' }, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: tag.id, name: 'Travel', color: '#ffffff' });
    expect((await api.patch(`/tags/${tag.id}`, { color: null }, { token: me.token })).body.color).toBeNull();
  });

  it('409 for a name another tag has; 404 for a foreign tag; 403 without entry.edit; 400 for bad input', async () => {
    const ws = await buildWorkspace();
    const foreign = await buildWorkspace();
    await buildTag(ws.id, { name: 'Taken' });
    const tag = await buildTag(ws.id, { name: 'Free' });
    const theirs = await buildTag(foreign.id, { name: 'Theirs' });
    const me = await actor(api, { workspaceId: ws.id });
    expectErrorBody(await api.patch(`/tags/${tag.id}`, { name: 'taken' }, { token: me.token }), 409, 'CONFLICT');
    expectErrorBody(await api.patch(`/tags/${theirs.id}`, { name: 'Mine' }, { token: me.token }), 404, 'NOT_FOUND');
    const viewer = await actor(api, { permissions: ['entry.create'], workspaceId: ws.id });
    expectErrorBody(await api.patch(`/tags/${tag.id}`, { name: 'X' }, { token: viewer.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/tags/${theirs.id}`, { name: 'X' }, { token: viewer.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/tags/${tag.id}`, { color: '#12345' }, { token: me.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.patch(`/tags/${tag.id}`, { workspaceId: foreign.id }, { token: me.token }), 400, 'BAD_REQUEST');
    expect((await Tag.findByPk(theirs.id))!.name).toBe('Theirs');
  });
});

describe('DELETE /tags/{id}', () => {
  it('archives the tag: gone from GET /tags and from new tagging (400), kept on its entries, its name free again', async () => {
    const ws = await buildWorkspace();
    const tag = await buildTag(ws.id, { name: 'Temp' });
    const me = await actor(api, { workspaceId: ws.id });
    const entryBody = { projectId: ws.projectIds[0], entryType: 'EXPENSE', amountCents: 100, baseCurrency: 'USD', entryDate: '2026-03-01' };
    const tagged = await api.post('/entries', { ...entryBody, tagIds: [tag.id] }, { token: me.token });
    expect(tagged.status, tagged.text).toBe(200);
    const res = await api.del(`/tags/${tag.id}`, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await Tag.findByPk(tag.id))!.archivedAt).toBeInstanceOf(Date);
    const usable = await api.get('/tags', { token: me.token, query: { workspaceId: ws.id } });
    expect(usable.body.map((t: { id: number }) => t.id)).not.toContain(tag.id);
    const all = await api.get('/tags', { token: me.token, query: { workspaceId: ws.id, includeArchived: 'true' } });
    expect(all.body.find((t: { id: number }) => t.id === tag.id)).toMatchObject({ name: 'Temp', archivedAt: expect.any(String) });
    const detail = await api.get(`/entries/${tagged.body.id}`, { token: me.token });
    expect(detail.body.tags).toEqual([{ id: tag.id, name: 'Temp', color: null }]);
    expectErrorBody(await api.post('/entries', { ...entryBody, tagIds: [tag.id] }, { token: me.token }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await api.put(`/entries/${tagged.body.id}/tags`, { tagIds: [tag.id, tag.id] }, { token: me.token }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(await api.del(`/tags/${tag.id}`, { token: me.token }), 404, 'NOT_FOUND');
    expect((await api.post('/tags', { workspaceId: ws.id, name: 'temp' }, { token: me.token })).status).toBe(200);
  });

  it('parallel deletes (archives) of tags sharing entries all succeed', async () => {
    const ws = await buildWorkspace();
    const me = await actor(api, { workspaceId: ws.id });
    const tags = [];
    for (let i = 0; i < 6; i++) tags.push((await buildTag(ws.id, { name: `shared-${i}` })).id);
    for (let i = 0; i < 8; i++) {
      const entry = await api.post(
        '/entries',
        { projectId: ws.projectIds[0], entryType: 'EXPENSE', amountCents: 100, baseCurrency: 'USD', entryDate: '2026-03-01', tagIds: tags },
        { token: me.token },
      );
      expect(entry.status, entry.text).toBe(200);
    }
    const results = await Promise.all(tags.map((id) => api.del(`/tags/${id}`, { token: me.token })));
    expect(results.map((r) => r.status)).toEqual(tags.map(() => 200));
    expect(await Tag.count({ where: { workspaceId: ws.id, archivedAt: null } })).toBe(0);
  });

  it('404 for a foreign tag, 403 without entry.edit, 400 for a bad id', async () => {
    const ws = await buildWorkspace();
    const foreign = await buildWorkspace();
    const theirs = await buildTag(foreign.id);
    const me = await actor(api, { workspaceId: ws.id });
    expectErrorBody(await api.del(`/tags/${theirs.id}`, { token: me.token }), 404, 'NOT_FOUND');
    const viewer = await actor(api, { permissions: ['workspace.read'], workspaceId: ws.id });
    expectErrorBody(await api.del(`/tags/${theirs.id}`, { token: viewer.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del('/tags/abc', { token: me.token }), 400, 'BAD_REQUEST');
    expect(await Tag.findByPk(theirs.id)).not.toBeNull();
  });
});
