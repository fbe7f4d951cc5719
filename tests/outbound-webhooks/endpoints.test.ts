import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { randomBytes } from 'node:crypto';
import { runtime } from '../../server/runtime.js';
import { rotateEndpointSecrets } from '../../server/domains/outbound-webhooks/index.js';
import { openPreviousSecret, openSecret } from '../../server/domains/outbound-webhooks/endpoint-secrets.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { actor, addProjectMember, buildWorkspace, createEndpoint, hookWorld, type HookWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { webhookTestConfig } from './helpers.js';

/** CONTRACT §15: endpoints CRUD, secrets, URL rules, access. */

let api: Api;
let w: HookWorld;
const URL_OK = 'http://127.0.0.1:9/hook';
beforeAll(async () => {
  api = await startServer();
  webhookTestConfig();
  w = await hookWorld(api);
});
afterAll(() => {
  runtime().config.WEBHOOK_ALLOW_PRIVATE_HOSTS = true;
});

const ENDPOINT_KEYS = ['createdAt', 'description', 'disabledReason', 'eventTypes', 'id', 'isActive', 'updatedAt', 'url', 'workspaceId'];

describe('endpoints', () => {
  it('create returns the endpoint and a whsec_ secret of 32 random bytes, shown only there', async () => {
    const res = await api.post(
      '/webhook-endpoints',
      { workspaceId: w.workspaceId, url: URL_OK, eventTypes: ['period.closed', 'entry.created'], description: 'books app' },
      { token: w.token },
    );
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
    expect(res.body).toMatchObject({
      workspaceId: w.workspaceId,
      url: URL_OK,
      eventTypes: ['entry.created', 'period.closed'],
      description: 'books app',
      isActive: true,
      disabledReason: null,
    });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(32);

    const one = await api.get(`/webhook-endpoints/${res.body.id}`, { token: w.token });
    expect(one.status).toBe(200);
    expect(Object.keys(one.body).sort()).toEqual(ENDPOINT_KEYS);
    const list = await api.get('/webhook-endpoints', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(list.status).toBe(200);
    expect(list.body.map((e: any) => e.id)).toContain(res.body.id);
    for (const text of [one.text, list.text]) expect(text).not.toContain(res.body.secret.slice(6));
  });

  it('the secret is stored encrypted (AES-GCM under a key id), never in clear', async () => {
    const ep = await createEndpoint(api, w, { url: URL_OK });
    const [row] = await db().query<Record<string, unknown>>('SELECT * FROM webhook_endpoints WHERE id = :id', {
      replacements: { id: ep.id },
      type: QueryTypes.SELECT,
    });
    expect(row.secret_kid).toBe(runtime().secrets.credentialsKeys[0].kid);
    const raw =
      JSON.stringify(row) +
      Object.values(row)
        .map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') + v.toString('base64') : ''))
        .join('');
    expect(raw).not.toContain(ep.secret);
    expect(raw).not.toContain(ep.secret.slice(6));
    expect(raw).not.toContain(Buffer.from(ep.secret.slice(6), 'base64').toString('latin1'));
  });

  it('npm run rotate-keys re-encrypts the current and previous secrets under the new key id', async () => {
    const ep = await createEndpoint(api, w, { url: URL_OK });
    const rotated = await api.post(`/webhook-endpoints/${ep.id}/rotate-secret`, undefined, { token: w.token });
    const k1 = runtime().secrets.credentialsKeys[0];
    const k2 = { kid: 'k2-webhooks', key: randomBytes(32) };
    const first = await rotateEndpointSecrets([k2, k1]);
    expect(first.webhookReencrypted).toBe(first.webhookEndpoints);
    expect(await rotateEndpointSecrets([k2, k1])).toEqual({ webhookEndpoints: first.webhookEndpoints, webhookReencrypted: 0 });
    const [row] = await db().query<any>('SELECT * FROM webhook_endpoints WHERE id = :id', {
      replacements: { id: ep.id },
      type: QueryTypes.SELECT,
    });
    expect([row.secret_kid, row.previous_secret_kid]).toEqual(['k2-webhooks', 'k2-webhooks']);
    expect(openSecret(ep.id, row, [k2])).toBe(rotated.body.secret);
    expect(openPreviousSecret(ep.id, row, [k2])).toBe(ep.secret);
    expect(() => openSecret(ep.id, row, [k1])).toThrow();
    // back under the test key for the rest of the file
    await rotateEndpointSecrets([k1, k2]);
  });

  it('omitted or empty eventTypes mean all; PATCH changes url, types, description, isActive', async () => {
    const ep = await createEndpoint(api, w, { url: URL_OK });
    const got = await api.get(`/webhook-endpoints/${ep.id}`, { token: w.token });
    expect(got.body).toMatchObject({ eventTypes: [], description: null });
    const res = await api.patch(
      `/webhook-endpoints/${ep.id}`,
      { url: 'http://127.0.0.1:9/other', eventTypes: ['sync.failed'], description: 'x', isActive: false },
      { token: w.token },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ url: 'http://127.0.0.1:9/other', eventTypes: ['sync.failed'], description: 'x', isActive: false });
    const back = await api.patch(`/webhook-endpoints/${ep.id}`, { isActive: true, description: null }, { token: w.token });
    expect(back.body).toMatchObject({ isActive: true, disabledReason: null, description: null, eventTypes: ['sync.failed'] });
  });

  it('rotate-secret returns a new secret; DELETE removes the endpoint', async () => {
    const ep = await createEndpoint(api, w, { url: URL_OK });
    const rotated = await api.post(`/webhook-endpoints/${ep.id}/rotate-secret`, undefined, { token: w.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(ep.secret);
    const del = await api.del(`/webhook-endpoints/${ep.id}`, { token: w.token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true });
    expectErrorBody(await api.get(`/webhook-endpoints/${ep.id}`, { token: w.token }), 404, 'NOT_FOUND');
  });

  it.each([
    ['an unknown event type', { eventTypes: ['entry.exploded'] }],
    ['an ftp url', { url: 'ftp://127.0.0.1/x' }],
    ['a url that is not one', { url: 'not a url' }],
    ['an unknown field', { secret: 'whsec_mine' }],
  ])('400 for %s', async (_, body) => {
    const res = await api.post('/webhook-endpoints', { workspaceId: w.workspaceId, url: URL_OK, ...body }, { token: w.token });
    expectErrorBody(res, 400, 'BAD_REQUEST');
  });

  it('loopback, private and link-local hosts are refused on write unless WEBHOOK_ALLOW_PRIVATE_HOSTS', async () => {
    const ep = await createEndpoint(api, w, { url: URL_OK });
    runtime().config.WEBHOOK_ALLOW_PRIVATE_HOSTS = false;
    try {
      for (const url of [
        'http://127.0.0.1:8080/x',
        'http://10.1.2.3/x',
        'https://192.168.0.5/x',
        'http://169.254.169.254/latest',
        'http://[::1]/x',
        'http://localhost/x',
      ]) {
        const res = await api.post('/webhook-endpoints', { workspaceId: w.workspaceId, url }, { token: w.token });
        expectErrorBody(res, 400, 'BAD_REQUEST');
        expect(res.body.message).toMatch(/WEBHOOK_ALLOW_PRIVATE_HOSTS|does not resolve/);
      }
      expectErrorBody(await api.patch(`/webhook-endpoints/${ep.id}`, { url: 'http://10.0.0.1/x' }, { token: w.token }), 400, 'BAD_REQUEST');
      // a public literal is accepted (nothing is sent on write)
      const pub = await api.post(
        '/webhook-endpoints',
        { workspaceId: w.workspaceId, url: 'https://93.184.216.34/hook', eventTypes: ['webhook.test'] },
        { token: w.token },
      );
      expect(pub.status, pub.text).toBe(200);
      await api.del(`/webhook-endpoints/${pub.body.id}`, { token: w.token });
    } finally {
      runtime().config.WEBHOOK_ALLOW_PRIVATE_HOSTS = true;
    }
  });
});

describe('access', () => {
  it('every /webhook-endpoints route needs integration.manage (403 before anything else)', async () => {
    const ep = await createEndpoint(api, w, { url: URL_OK });
    const weak = await actor(api, { permissions: PERMISSIONS.filter((p) => p !== 'integration.manage'), workspaceId: w.workspaceId });
    const calls = [
      api.get('/webhook-endpoints', { token: weak.token, query: { workspaceId: w.workspaceId } }),
      api.post('/webhook-endpoints', { workspaceId: w.workspaceId, url: URL_OK }, { token: weak.token }),
      api.get(`/webhook-endpoints/${ep.id}`, { token: weak.token }),
      api.patch(`/webhook-endpoints/${ep.id}`, { description: 'x' }, { token: weak.token }),
      api.del(`/webhook-endpoints/${ep.id}`, { token: weak.token }),
      api.post(`/webhook-endpoints/${ep.id}/rotate-secret`, undefined, { token: weak.token }),
      api.get(`/webhook-endpoints/${ep.id}/deliveries`, { token: weak.token }),
      api.post(`/webhook-endpoints/${ep.id}/test`, undefined, { token: weak.token }),
      api.post(`/webhook-endpoints/${ep.id}/replay`, { since: '2020-01-01T00:00:00Z' }, { token: weak.token }),
      api.post(`/webhook-endpoints/${ep.id}/deliveries/${ep.id}/retry`, undefined, { token: weak.token }),
    ];
    for (const res of await Promise.all(calls)) expectErrorBody(res, 403, 'FORBIDDEN');
    // the feed needs membership only
    const feed = await api.get('/webhook-events', { token: weak.token, query: { workspaceId: w.workspaceId } });
    expect(feed.status, feed.text).toBe(200);
    expectErrorBody(await api.get('/webhook-events', { query: { workspaceId: w.workspaceId } }), 401, 'UNAUTHORIZED');
  });

  it("another workspace's endpoints are 404, its workspaceId 403; its feed 403 (project members too)", async () => {
    const ep = await createEndpoint(api, w, { url: URL_OK });
    const other = await buildWorkspace();
    const stranger = await actor(api, { workspaceId: other.id });
    const t = { token: stranger.token };
    expectErrorBody(await api.get('/webhook-endpoints', { ...t, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post('/webhook-endpoints', { workspaceId: w.workspaceId, url: URL_OK }, t), 403, 'FORBIDDEN');
    const calls = [
      api.get(`/webhook-endpoints/${ep.id}`, t),
      api.patch(`/webhook-endpoints/${ep.id}`, { description: 'x' }, t),
      api.del(`/webhook-endpoints/${ep.id}`, t),
      api.post(`/webhook-endpoints/${ep.id}/rotate-secret`, undefined, t),
      api.get(`/webhook-endpoints/${ep.id}/deliveries`, t),
      api.post(`/webhook-endpoints/${ep.id}/test`, undefined, t),
      api.post(`/webhook-endpoints/${ep.id}/replay`, { since: '2020-01-01T00:00:00Z' }, t),
      api.post(`/webhook-endpoints/${ep.id}/deliveries/${ep.id}/retry`, undefined, t),
    ];
    for (const res of await Promise.all(calls)) expectErrorBody(res, 404, 'NOT_FOUND');
    expectErrorBody(await api.get('/webhook-events', { ...t, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    const ws = await buildWorkspace({ projects: 1 });
    const projectOnly = await actor(api);
    await addProjectMember(ws.projectIds[0], projectOnly.id);
    expectErrorBody(await api.get('/webhook-events', { token: projectOnly.token, query: { workspaceId: ws.id } }), 403, 'FORBIDDEN');
    // untouched
    expect((await api.get(`/webhook-endpoints/${ep.id}`, { token: w.token })).status).toBe(200);
  });
});
