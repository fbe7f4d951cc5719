import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { runtime } from '../../../server/runtime.js';
import { actor, buildWorkspace } from '../../support/factories/index.js';
import { client, expectErrorBody, registerSecret, scannedResponses, startServer, type Api } from '../../support/http.js';
import { Writable } from 'node:stream';
import { createLogger } from '../../../server/lib/logger.js';
import { setRuntime } from '../../../server/runtime.js';
import { scanDatabase, scanResponse } from './secret-scan.js';

/**
 * The secret scanner that every test response passes through (tests/support/http.ts): it must
 * catch each kind of leak, stay quiet on the documented exception (a new integration's API key
 * in the create / rotate-key response) and on field names inside validation issues.
 */

const API_KEY = `fes_live_AbCdEfGh_${'x'.repeat(40)}`;
const throws =
  (path: string, text: string, method = 'GET') =>
  () =>
    scanResponse(method, path, text, JSON.parse(text));

describe('scanResponse', () => {
  it('catches password and key hashes, sealed credentials and webhook secrets by field name', () => {
    expect(throws('/users', '{"note":"$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"}')).toThrow(/argon2 hash.*GET \/users/);
    for (const key of ['passwordHash', 'password_hash', 'keyHash', 'key_hash', 'credentialsEncrypted', 'webhookSecret', 'password']) {
      expect(throws('/x', JSON.stringify({ items: [{ nested: { [key]: 'abc' } }] })), key).toThrow(
        new RegExp(`field \\$\\.items\\[0\\]\\.nested\\.${key}`),
      );
    }
  });

  it('catches the runtime secrets in any encoding and every registered plaintext secret', () => {
    const { jwtSecret, credentialsKeys } = runtime().secrets;
    expect(throws('/a', JSON.stringify({ v: `x${jwtSecret}y` }))).toThrow(/registered secret in the response of GET \/a/);
    expect(throws('/a', JSON.stringify({ v: credentialsKeys[0].key.toString('base64') }))).toThrow(/registered secret/);
    expect(throws('/a', JSON.stringify({ v: credentialsKeys[0].key.toString('hex') }))).toThrow(/registered secret/);
    const plain = `plain-"quoted"-${randomBytes(6).toString('hex')}`;
    registerSecret(plain);
    expect(throws('/b', JSON.stringify({ message: `echo ${plain}` }))).toThrow(/registered secret in the response of GET \/b/);
    expect(() => registerSecret('abc')).toThrow(/too short/);
  });

  it('allows an integration API key only in the create and rotate-key responses', () => {
    const body = JSON.stringify({ id: 'i', apiKey: API_KEY });
    expect(() => scanResponse('POST', '/integrations', body, JSON.parse(body))).not.toThrow();
    expect(() => scanResponse('POST', '/integrations/0b4c/rotate-key', body, JSON.parse(body))).not.toThrow();
    expect(throws('/integrations', body)).toThrow(/API key in the response of GET \/integrations/);
    expect(throws('/entries/1', body, 'PATCH')).toThrow(/API key/);
  });

  it("allows an app's API key only in the create and rotate responses of /api-keys, REST or tRPC", () => {
    const body = JSON.stringify({ id: 'k', apiKey: `fes_app_AbCdEfGh_${'Z'.repeat(43)}` });
    for (const path of ['/api-keys', '/api-keys/0b4c/rotate', '/trpc/apiKeys.create', '/trpc/apiKeys.rotate']) {
      expect(() => scanResponse('POST', path, body, JSON.parse(body)), path).not.toThrow();
    }
    expect(throws('/api-keys', body)).toThrow(/app's API key in the response of GET \/api-keys/);
    expect(throws('/api-keys/0b4c', body)).toThrow(/app's API key/);
    expect(throws('/entries', body, 'POST')).toThrow(/app's API key/);
  });

  it('stays quiet on field names inside validation issues, null secrets and the OpenAPI schemas', () => {
    const issues = {
      message: 'Input validation failed',
      code: 'BAD_REQUEST',
      issues: [{ code: 'unrecognized_keys', keys: ['passwordHash'] }],
    };
    expect(throws('/users', JSON.stringify(issues), 'POST')).not.toThrow();
    expect(throws('/accounting/connections', JSON.stringify({ webhookSecret: null, hasWebhookSecret: false }))).not.toThrow();
    expect(throws('/openapi.json', JSON.stringify({ properties: { password: { type: 'string' } } }))).not.toThrow();
  });
});

describe('the test client scans every response', () => {
  let leaky: http.Server;
  let leakyApi: Api;
  let api: Api;

  beforeAll(async () => {
    api = await startServer();
    leaky = http.createServer((req, res) => {
      res.setHeader('Content-Type', req.url === '/text' ? 'text/plain' : 'application/json');
      res.end(req.url === '/text' ? 'hash=$argon2id$v=19$abc' : JSON.stringify({ user: { id: 1, password_hash: 'h' } }));
    });
    await new Promise<void>((resolve) => leaky.listen(0, '127.0.0.1', resolve));
    leakyApi = client(`http://127.0.0.1:${(leaky.address() as AddressInfo).port}`);
  });
  afterAll(() => new Promise<void>((resolve) => leaky.close(() => resolve())));

  it('fails the request that leaks, naming its path, JSON or not', async () => {
    await expect(leakyApi.get('/users/me')).rejects.toThrow(/field \$\.user\.password_hash in the response of GET \/users\/me/);
    await expect(leakyApi.get('/text')).rejects.toThrow(/argon2 hash in the response of GET \/text/);
  });

  it('the real service passes it: users, logins, connections with registered secrets, integrations', async () => {
    const before = scannedResponses();
    const ws = await buildWorkspace();
    const admin = await actor(api, { workspaceId: ws.id });
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const credential = `cred-${randomBytes(8).toString('hex')}`;
    const webhookSecret = `hook-${randomBytes(8).toString('hex')}`;
    [password, credential, webhookSecret].forEach(registerSecret);

    const user = await api.post(
      '/users',
      { email: `s-${randomBytes(3).toString('hex')}@example.test`, name: 'S', password, permissions: [] },
      { token: admin.token },
    );
    expect(user.status, user.text).toBeLessThan(300);
    expect((await api.post('/auth/login', { email: user.body.email, password })).status).toBe(200);
    const [{ hash }] = await db().query<{ hash: string }>('SELECT password_hash AS hash FROM users WHERE id = :id', {
      replacements: { id: user.body.id },
      type: QueryTypes.SELECT,
    });
    expect(hash.startsWith('$argon2')).toBe(true); // what the scanner looks for is what the database holds

    const conn = await api.post(
      '/accounting/connections',
      { workspaceId: ws.id, providerType: 'MANUAL', name: 'S', credentials: { apiKey: credential }, config: { webhookSecret } },
      { token: admin.token },
    );
    expect(conn.status, conn.text).toBeLessThan(300);
    expect(conn.body.hasWebhookSecret).toBe(true);
    const created = await api.post('/integrations', { workspaceId: ws.id, name: 'S' }, { token: admin.token });
    expect(created.body.apiKey).toMatch(/^fes_live_/);
    const rotated = await api.post(`/integrations/${created.body.id}/rotate-key`, undefined, { token: admin.token });
    expect(rotated.body.apiKey).toMatch(/^fes_live_/);
    for (const path of ['/users', '/auth/me', `/accounting/connections/${conn.body.id}`, '/openapi.json']) {
      expect((await api.get(path, { token: admin.token })).status).toBe(200);
    }
    for (const path of ['/accounting/connections', '/integrations']) {
      expect((await api.get(path, { token: admin.token, query: { workspaceId: ws.id } })).status).toBe(200);
    }
    expect(scannedResponses() - before).toBeGreaterThanOrEqual(12);
  });
});

describe('no secret at rest in plain text (issue 18)', () => {
  let api: Api;
  const logs: string[] = [];
  const previous = runtime();
  beforeAll(async () => {
    api = await startServer();
    const sink = new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    });
    setRuntime({ ...previous, logger: createLogger('trace', sink) });
  });
  afterAll(() => setRuntime(previous));

  it('finds a planted plaintext in any table, text or bytea', async () => {
    const planted = `planted-${randomBytes(8).toString('hex')}`;
    const ws = await buildWorkspace();
    await db().query('INSERT INTO tags (workspace_id, name, created_at, updated_at) VALUES (:ws, :name, now(), now())', {
      replacements: { ws: ws.id, name: `x ${planted} y` },
    });
    expect(await scanDatabase([planted])).toEqual([{ secret: planted, column: '"public"."tags"."name"' }]);
    await db().query('DELETE FROM tags WHERE name = :name', { replacements: { name: `x ${planted} y` } });
    expect(await scanDatabase([planted])).toEqual([]);
  });

  it('after users, logins, connections with credentials and integrations (with Idempotency-Key too), no table column and no log line holds one', async () => {
    const ws = await buildWorkspace();
    const admin = await actor(api, { workspaceId: ws.id });
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const credential = `cred-${randomBytes(8).toString('hex')}`;
    const webhookSecret = `hook-${randomBytes(8).toString('hex')}`;
    const email = `rest-${randomBytes(3).toString('hex')}@example.test`;
    const user = await api.post('/users', { email, name: 'R', password, permissions: [] }, { token: admin.token });
    expect(user.status, user.text).toBe(200);
    const login = await api.post('/auth/login', { email, password }, { headers: { 'Idempotency-Key': `login-${email}` } });
    expect(login.status).toBe(200);
    const conn = await api.post(
      '/accounting/connections',
      { workspaceId: ws.id, providerType: 'MANUAL', name: 'R', credentials: { apiKey: credential }, config: { webhookSecret } },
      { token: admin.token, headers: { 'Idempotency-Key': `conn-${email}` } },
    );
    expect(conn.status, conn.text).toBe(200);
    const keyed = { token: admin.token, headers: { 'Idempotency-Key': `integration-${email}` } };
    const created = await api.post('/integrations', { workspaceId: ws.id, name: 'R' }, keyed);
    expect(created.status).toBe(200);
    expect((await api.post('/integrations', { workspaceId: ws.id, name: 'R' }, keyed)).headers.get('idempotency-replayed')).toBe('true');
    const plain = await api.post('/integrations', { workspaceId: ws.id, name: 'R2' }, { token: admin.token });
    const rotated = await api.post(`/integrations/${created.body.id}/rotate-key`, undefined, {
      token: admin.token,
      headers: { 'Idempotency-Key': `rotate-${email}` },
    });
    expect(rotated.status).toBe(200);
    const secrets = [
      password,
      credential,
      webhookSecret,
      created.body.apiKey,
      plain.body.apiKey,
      rotated.body.apiKey,
      login.body.access_token,
      admin.token,
    ];
    expect(await scanDatabase(secrets)).toEqual([]);
    const logged = logs.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(logged.includes(secret), 'a secret in the logs').toBe(false);
  });

  it("apps' API keys: after create (with Idempotency-Key), rotate and use, no response, table column or log line holds one", async () => {
    const ws = await buildWorkspace();
    const admin = await actor(api, { workspaceId: ws.id });
    const keyed = { token: admin.token, headers: { 'Idempotency-Key': `app-key-${ws.id}` } };
    const body = { workspaceId: ws.id, name: 'Scanned app', permissions: ['entry.create', 'entry.export'] };
    const created = await api.post('/api-keys', body, keyed);
    expect(created.status, created.text).toBe(200);
    const replay = await api.post('/api-keys', body, keyed);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    const rotated = await api.post(`/api-keys/${created.body.id}/rotate`, { graceSeconds: 30 }, { token: admin.token });
    expect(rotated.status).toBe(200);
    const viaTrpc = await api.post('/trpc/apiKeys.create', body, { token: admin.token });
    expect(viaTrpc.status).toBe(200);
    for (const secret of [created.body.apiKey, rotated.body.apiKey, viaTrpc.body.result.data.apiKey]) {
      registerSecret(secret); // from here on no response may carry it (the scanning client checks each)
      const used = await api.post(
        '/entries',
        { projectId: ws.projectIds[0], entryType: 'EXPENSE', amountCents: 100, baseCurrency: 'USD', entryDate: '2026-01-02' },
        { token: secret, headers: { 'Idempotency-Key': `use-${secret.slice(8, 16)}` } },
      );
      expect(used.status, used.text).toBe(200);
      expect((await api.get('/entries/export/csv', { token: secret, query: { workspaceId: ws.id } })).status).toBe(200);
      expectErrorBody(await api.get('/auth/me', { token: secret }), 403, 'FORBIDDEN');
    }
    expect((await api.get('/api-keys', { token: admin.token, query: { workspaceId: ws.id } })).status).toBe(200);
    const secrets = [created.body.apiKey, rotated.body.apiKey, viaTrpc.body.result.data.apiKey];
    expect(await scanDatabase(secrets)).toEqual([]);
    const logged = logs.join('');
    for (const secret of secrets) expect(logged.includes(secret), 'a key in the logs').toBe(false);
  });
});
