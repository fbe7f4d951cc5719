import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { createHash } from 'node:crypto';
import { db } from '../../server/db/database.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { actor, buildWorkspace, createIntegration, integrationWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { expectIngestOk, ingest, INTEGRATION_KEYS, item, KEY_FORMAT } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('POST /integrations', () => {
  it('creates the integration with its entry source and shows the key once', async () => {
    const ws = await buildWorkspace({ projects: 2 });
    const user = await actor(api, { workspaceId: ws.id });
    const res = await createIntegration(api, user.token, { workspaceId: ws.id, name: '  Shop feed ', projectIds: [ws.projectIds[1]] });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...INTEGRATION_KEYS, 'apiKey'].sort());
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      workspaceId: ws.id,
      name: 'Shop feed',
      projectIds: [ws.projectIds[1]],
      keyPrefix: expect.stringMatching(/^fes_live_[A-Za-z0-9]{8}$/),
      entrySourceId: expect.any(Number),
      isActive: true,
      revokedAt: null,
      createdBy: user.id,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      apiKey: expect.stringMatching(KEY_FORMAT),
    });
    expect(res.body.apiKey.startsWith(`${res.body.keyPrefix}_`)).toBe(true);

    const sources = await api.get('/entry-sources', { token: user.token, query: { workspaceId: ws.id } });
    expect(sources.status).toBe(200);
    expect(sources.body).toContainEqual(
      expect.objectContaining({ id: res.body.entrySourceId, kind: 'INTEGRATION', integrationId: res.body.id, workspaceId: ws.id }),
    );

    // only the SHA-256 of the key is stored, never the key itself
    const [row] = await db().query<Record<string, unknown>>('SELECT * FROM integrations WHERE id = :id', {
      replacements: { id: res.body.id },
      type: QueryTypes.SELECT,
    });
    expect(row.key_hash).toBe(sha256(res.body.apiKey));
    expect(JSON.stringify(row)).not.toContain(res.body.apiKey);
  });

  it('treats omitted and empty projectIds as every project', async () => {
    const ws = await buildWorkspace({ projects: 2 });
    const user = await actor(api, { workspaceId: ws.id });
    const omitted = await createIntegration(api, user.token, { workspaceId: ws.id, name: 'A' });
    const empty = await createIntegration(api, user.token, { workspaceId: ws.id, name: 'B', projectIds: [] });
    expect(omitted.body.projectIds).toEqual([]);
    expect(empty.body.projectIds).toEqual([]);
    // an entry for either project is accepted
    const res = await ingest(api, omitted.body.apiKey, {
      entries: [item(ws.projectIds[0], 'a'), item(ws.projectIds[1], 'b')],
    });
    expectIngestOk(res);
    expect(res.body.created).toBe(2);
    expect(omitted.body.apiKey).not.toBe(empty.body.apiKey);
  });

  it('refuses projects of another workspace, unknown fields and bad names (400)', async () => {
    const ws = await buildWorkspace({ projects: 1 });
    const other = await buildWorkspace({ projects: 1 });
    const user = await actor(api, { workspaceId: ws.id });
    const foreign = await createIntegration(api, user.token, { workspaceId: ws.id, name: 'X', projectIds: [other.projectIds[0]] });
    expectErrorBody(foreign, 400, 'BAD_REQUEST');
    expect(foreign.body.message).toContain(String(other.projectIds[0]));
    expectErrorBody(await createIntegration(api, user.token, { workspaceId: ws.id, name: 'X', apiKey: 'mine' }), 400, 'BAD_REQUEST');
    expectErrorBody(await createIntegration(api, user.token, { workspaceId: ws.id, name: '   ' }), 400, 'BAD_REQUEST');
    expectErrorBody(await createIntegration(api, user.token, { name: 'X' }), 400, 'BAD_REQUEST');
    const list = await api.get('/integrations', { token: user.token, query: { workspaceId: ws.id } });
    expect(list.body).toEqual([]);
  });

  it('needs integration.manage (403 even for a foreign workspace) and membership (403)', async () => {
    const ws = await buildWorkspace();
    const noPerm = await actor(api, { workspaceId: ws.id, permissions: PERMISSIONS.filter((p) => p !== 'integration.manage') });
    expectErrorBody(await createIntegration(api, noPerm.token, { workspaceId: ws.id, name: 'X' }), 403, 'FORBIDDEN');
    const stranger = await actor(api);
    expectErrorBody(await createIntegration(api, stranger.token, { workspaceId: ws.id, name: 'X' }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post('/integrations', { workspaceId: ws.id, name: 'X' }), 401, 'UNAUTHORIZED');
  });
});

describe('GET /integrations', () => {
  it('lists the workspace integrations as a plain array without key or hash', async () => {
    const w = await integrationWorld(api);
    const second = await createIntegration(api, w.token, { workspaceId: w.workspaceId, name: 'Second' });
    const otherWs = await integrationWorld(api);
    const res = await api.get('/integrations', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(res.status).toBe(200);
    expect(res.body.map((i: { id: string }) => i.id)).toEqual([w.integration.id, second.body.id]);
    expect(res.body[0]).toEqual(w.integration);
    for (const i of res.body) expect(Object.keys(i).sort()).toEqual(INTEGRATION_KEYS);
    expect(res.text).not.toContain(w.apiKey);
    expect(res.text).not.toContain(sha256(w.apiKey));
    expect(res.text).not.toContain(otherWs.integration.id);
  });

  it('requires workspaceId (400), membership (403) and the permission (403)', async () => {
    const w = await integrationWorld(api);
    expectErrorBody(await api.get('/integrations', { token: w.token }), 400, 'BAD_REQUEST');
    const stranger = await actor(api);
    expectErrorBody(await api.get('/integrations', { token: stranger.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    const noPerm = await actor(api, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
    expectErrorBody(await api.get('/integrations', { token: noPerm.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
  });
});

describe('DELETE /integrations/{id} and POST /integrations/{id}/rotate-key', () => {
  it('revoke stops the key at once and shows in the list; a second revoke is 409', async () => {
    const w = await integrationWorld(api);
    expectIngestOk(await ingest(api, w.apiKey, { entries: [item(w.projectIds[0], 'before')] }));
    const res = await api.del(`/integrations/${w.integration.id}`, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    expectErrorBody(await ingest(api, w.apiKey, { entries: [item(w.projectIds[0], 'after')] }), 401, 'UNAUTHORIZED');
    const list = await api.get('/integrations', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(list.body[0]).toMatchObject({ id: w.integration.id, isActive: false, revokedAt: expect.stringMatching(ISO) });
    expectErrorBody(await api.del(`/integrations/${w.integration.id}`, { token: w.token }), 409, 'CONFLICT');
    expectErrorBody(await api.post(`/integrations/${w.integration.id}/rotate-key`, undefined, { token: w.token }), 409, 'CONFLICT');
  });

  it('rotate returns a new key; the old one is refused from then on', async () => {
    const w = await integrationWorld(api);
    const res = await api.post(`/integrations/${w.integration.id}/rotate-key`, undefined, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.apiKey).toMatch(KEY_FORMAT);
    expect(res.body.apiKey).not.toBe(w.apiKey);
    expect(res.body).toMatchObject({ id: w.integration.id, entrySourceId: w.integration.entrySourceId, isActive: true });
    expect(res.body.apiKey.startsWith(`${res.body.keyPrefix}_`)).toBe(true);
    expectErrorBody(await ingest(api, w.apiKey, { entries: [item(w.projectIds[0], 'old')] }), 401, 'UNAUTHORIZED');
    const fresh = await ingest(api, res.body.apiKey, { entries: [item(w.projectIds[0], 'new')] });
    expectIngestOk(fresh);
    expect(fresh.body.created).toBe(1);
  });

  it('foreign ids are 404, missing permission 403, malformed ids 400', async () => {
    const w = await integrationWorld(api);
    const stranger = await actor(api, { workspaceId: (await buildWorkspace()).id });
    expectErrorBody(await api.del(`/integrations/${w.integration.id}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(`/integrations/${w.integration.id}/rotate-key`, undefined, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del('/integrations/00000000-0000-4000-8000-000000000000', { token: w.token }), 404, 'NOT_FOUND');
    const noPerm = await actor(api, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
    expectErrorBody(await api.del(`/integrations/${w.integration.id}`, { token: noPerm.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post(`/integrations/${w.integration.id}/rotate-key`, undefined, { token: noPerm.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del('/integrations/not-a-uuid', { token: w.token }), 400, 'BAD_REQUEST');
    // the stranger's attempts changed nothing
    expectIngestOk(await ingest(api, w.apiKey, { entries: [item(w.projectIds[0], 'still-works')] }));
  });
});
