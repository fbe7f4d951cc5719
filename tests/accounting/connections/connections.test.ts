import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { runtime, setRuntime } from '../../../server/runtime.js';
import { actor, buildWorkspace, accountingWorld, createConnection, type AccountingWorld } from '../../support/factories/index.js';
import { expectErrorBody, registerSecret, startServer, type Api } from '../../support/http.js';
import { CONNECTION_KEYS, expectStatus, recordingApi } from '../helpers.js';

/**
 * Connections (CONTRACT §7). Every connection call of this file goes through a recording
 * client; the last tests prove that no response body, no stored column and no log line
 * carries a credential or webhook secret.
 */

const SECRETS = {
  accessToken: 'qb-access-token-5c1f0e9a7d3b',
  refreshToken: 'qb-refresh-token-8e2d4a6c0b1f',
  clientSecret: 'client-secret-3a9b7c5d1e0f',
  verifier: 'intuit-verifier-4d6e8f0a2b3c',
  apiKey: 'custom-api-key-7f3e1d9c5b2a',
  webhook: 'webhook-secret-2b4d6f8a0c1e',
  webhook2: 'webhook-secret-rotated-9a8b7c6d',
  replaced: 'replaced-access-token-1a2b3c4d',
};
Object.values(SECRETS).forEach(registerSecret); // the test client's scanner fails any response holding one
const QB_CREDENTIALS = {
  realmId: '9130355',
  accessToken: SECRETS.accessToken,
  refreshToken: SECRETS.refreshToken,
  tokenExpiresAt: '2030-01-01T00:00:00.000Z',
  clientId: 'client-id-public',
  clientSecret: SECRETS.clientSecret,
  webhookVerifierToken: SECRETS.verifier,
};

let raw: Api;
let api: Api;
let responses: ReturnType<typeof recordingApi>['responses'];
let w: AccountingWorld;
const logLines: string[] = [];
let restoreLogger: () => void;

beforeAll(async () => {
  raw = await startServer();
  ({ api, responses } = recordingApi(raw));
  w = await accountingWorld(raw);
  w.api = api;
  const previous = runtime();
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  setRuntime({ ...previous, logger: pino({ level: 'trace' }, sink) });
  restoreLogger = () => setRuntime(previous);
});
afterAll(() => restoreLogger());

const post = (body: Record<string, unknown>, token = w.token) => api.post('/accounting/connections', body, { token });
const base = () => ({ workspaceId: w.workspaceId, providerType: 'MANUAL', name: 'Books', credentials: {} });

describe('POST /accounting/connections', () => {
  it('creates a MANUAL connection with the documented defaults and exactly the contract fields', async () => {
    const res = await post(base());
    expectStatus(res, 200);
    expect(Object.keys(res.body).sort()).toEqual(CONNECTION_KEYS);
    expect(res.body).toMatchObject({
      workspaceId: w.workspaceId,
      providerType: 'MANUAL',
      name: 'Books',
      config: {},
      hasWebhookSecret: false,
      syncMode: 'MANUAL_PUSH',
      requireReview: true,
      requireCompletenessForSync: true,
      syncScheduleCron: null,
      projectIds: [],
      isActive: true,
      lastPulledAt: null,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('creates a QUICKBOOKS connection with every field; secrets only show as hasWebhookSecret', async () => {
    const res = await post({
      ...base(),
      providerType: 'QUICKBOOKS',
      name: 'QuickBooks Online',
      credentials: QB_CREDENTIALS,
      config: { webhookSecret: SECRETS.webhook, minorVersion: 65 },
      syncMode: 'BIDIRECTIONAL',
      requireReview: false,
      requireCompletenessForSync: false,
      syncScheduleCron: '*/15 * * * *',
      projectIds: [w.projectIds[1], w.projectIds[0], w.projectIds[1]],
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      providerType: 'QUICKBOOKS',
      config: { minorVersion: 65 },
      hasWebhookSecret: true,
      syncMode: 'BIDIRECTIONAL',
      requireReview: false,
      requireCompletenessForSync: false,
      syncScheduleCron: '*/15 * * * *',
      projectIds: [...w.projectIds].sort((a, b) => a - b),
    });
    expect(res.body.config).not.toHaveProperty('webhookSecret');
    expect(res.body).not.toHaveProperty('credentials');
  });

  it('accepts a custom provider type with an http(s) config.baseUrl', async () => {
    const res = await post({
      ...base(),
      providerType: 'ACME_LEDGER_2',
      credentials: { accessToken: SECRETS.apiKey },
      config: { baseUrl: 'https://ledger.example.com/api' },
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ providerType: 'ACME_LEDGER_2', config: { baseUrl: 'https://ledger.example.com/api' } });
  });

  it.each([
    ['a lower-case type', { providerType: 'manual' }],
    ['a one-letter type', { providerType: 'X' }],
    ['a type of 51 characters', { providerType: `A${'B'.repeat(50)}` }],
    ['a type starting with a digit', { providerType: '1LEDGER' }],
    ['a custom type without config.baseUrl', { providerType: 'ACME_LEDGER' }],
    ['a custom type with an ftp baseUrl', { providerType: 'ACME_LEDGER', config: { baseUrl: 'ftp://ledger.example.com' } }],
    ['a custom type with a baseUrl that is no URL', { providerType: 'ACME_LEDGER', config: { baseUrl: 'ledger.example.com' } }],
    ['a baseUrl with user info', { providerType: 'ACME_LEDGER', config: { baseUrl: 'https://u:p@ledger.example.com' } }],
    ['no credentials', { credentials: undefined }],
    ['credentials that are not an object', { credentials: 'secret' }],
    ['QUICKBOOKS credentials without tokens', { providerType: 'QUICKBOOKS', credentials: { realmId: '1' } }],
    ['a 6-field cron', { syncScheduleCron: '0 */5 * * * *' }],
    ['a 4-field cron', { syncScheduleCron: '* * * *' }],
    ['a cron with an out-of-range minute', { syncScheduleCron: '61 * * * *' }],
    ['a cron that is words', { syncScheduleCron: 'every five minutes ok' }],
    ['an unknown syncMode', { syncMode: 'SOMETIMES' }],
    ['an unknown field', { secretMode: true }],
    ['an empty name', { name: '  ' }],
    ['no workspaceId', { workspaceId: undefined }],
    ['a webhookSecret that is not a string', { config: { webhookSecret: 42 } }],
  ])('refuses %s with 400', async (_label, patch) => {
    const res = await post({ ...base(), ...patch });
    expectErrorBody(res, 400, 'BAD_REQUEST');
  });

  it('refuses projectIds of another workspace (400)', async () => {
    const other = await buildWorkspace();
    const res = await post({ ...base(), projectIds: [w.projectIds[0], other.projectIds[0]] });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.message).toContain(String(other.projectIds[0]));
  });

  it('needs accounting.manage (403) and membership of the workspace (403)', async () => {
    const lacking = await actor(raw, { workspaceId: w.workspaceId, permissions: ['accounting.review', 'accounting.mappings'] });
    expectErrorBody(await post(base(), lacking.token), 403, 'FORBIDDEN');
    const outsider = await actor(raw);
    expectErrorBody(await post(base(), outsider.token), 403, 'FORBIDDEN');
    expectErrorBody(await api.post('/accounting/connections', base()), 401, 'UNAUTHORIZED');
  });
});

describe('GET /accounting/connections and /accounting/connections/{id}', () => {
  it("lists the workspace's connections oldest first, each without credentials", async () => {
    const ws = await accountingWorld(raw);
    ws.api = api;
    const a = await createConnection(ws, { name: 'First', credentials: { accessToken: SECRETS.accessToken } });
    const b = await createConnection(ws, { name: 'Second', config: { webhookSecret: SECRETS.webhook } });
    const res = await api.get('/accounting/connections', { token: ws.token, query: { workspaceId: ws.workspaceId } });
    expectStatus(res, 200);
    expect(res.body.map((c: any) => c.id)).toEqual([a.id, b.id]);
    expect(res.body.map((c: any) => c.hasWebhookSecret)).toEqual([false, true]);
    for (const c of res.body) expect(Object.keys(c).sort()).toEqual(CONNECTION_KEYS);
  });

  it('needs workspaceId (400); a foreign workspace is 403, a foreign connection 404', async () => {
    expectErrorBody(await api.get('/accounting/connections', { token: w.token }), 400, 'BAD_REQUEST');
    const other = await accountingWorld(raw);
    other.api = api;
    const foreign = await createConnection(other);
    expectErrorBody(
      await api.get('/accounting/connections', { token: w.token, query: { workspaceId: other.workspaceId } }),
      403,
      'FORBIDDEN',
    );
    expectErrorBody(await api.get(`/accounting/connections/${foreign.id}`, { token: w.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.patch(`/accounting/connections/${foreign.id}`, { name: 'x' }, { token: w.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/accounting/connections/${foreign.id}`, { token: w.token }), 404, 'NOT_FOUND');
    const own = await api.get(`/accounting/connections/${foreign.id}`, { token: other.token });
    expectStatus(own, 200);
    expect(own.body.id).toBe(foreign.id);
  });

  it('answers 404 for an unknown id and 400 for an id that is no uuid', async () => {
    expectErrorBody(await api.get('/accounting/connections/00000000-0000-4000-8000-000000000000', { token: w.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get('/accounting/connections/123', { token: w.token }), 400, 'BAD_REQUEST');
  });
});

describe('PATCH /accounting/connections/{id}', () => {
  it('updates the given fields and leaves the others', async () => {
    const c = await createConnection(w, { config: { webhookSecret: SECRETS.webhook, region: 'eu' } });
    const res = await api.patch(
      `/accounting/connections/${c.id}`,
      { name: 'Renamed', syncMode: 'AUTO_PUSH', requireReview: false, syncScheduleCron: '0 2 * * 1-5', projectIds: [w.projectIds[0]] },
      { token: w.token },
    );
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      name: 'Renamed',
      syncMode: 'AUTO_PUSH',
      requireReview: false,
      requireCompletenessForSync: true,
      syncScheduleCron: '0 2 * * 1-5',
      projectIds: [w.projectIds[0]],
      config: { region: 'eu' },
      hasWebhookSecret: true,
    });
    expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(c.updatedAt).getTime());
  });

  it('config replaces the stored config; webhookSecret: string sets, null clears, absent keeps', async () => {
    const c = await createConnection(w, { config: { webhookSecret: SECRETS.webhook, region: 'eu' } });
    const kept = await api.patch(`/accounting/connections/${c.id}`, { config: { region: 'us' } }, { token: w.token });
    expect(kept.body).toMatchObject({ config: { region: 'us' }, hasWebhookSecret: true });
    const cleared = await api.patch(
      `/accounting/connections/${c.id}`,
      { config: { region: 'us', webhookSecret: null } },
      { token: w.token },
    );
    expect(cleared.body).toMatchObject({ config: { region: 'us' }, hasWebhookSecret: false });
    const set = await api.patch(`/accounting/connections/${c.id}`, { config: { webhookSecret: SECRETS.webhook2 } }, { token: w.token });
    expect(set.body).toMatchObject({ config: {}, hasWebhookSecret: true });
  });

  it('replaces the credentials (stored under a new ciphertext) without returning them', async () => {
    const c = await createConnection(w, { credentials: { accessToken: SECRETS.accessToken } });
    const [before] = await db().query<{ ct: Buffer }>('SELECT credentials_ciphertext AS ct FROM accounting_connections WHERE id = :id', {
      replacements: { id: c.id },
      type: QueryTypes.SELECT,
    });
    const res = await api.patch(`/accounting/connections/${c.id}`, { credentials: { accessToken: SECRETS.replaced } }, { token: w.token });
    expectStatus(res, 200);
    const [after] = await db().query<{ ct: Buffer }>('SELECT credentials_ciphertext AS ct FROM accounting_connections WHERE id = :id', {
      replacements: { id: c.id },
      type: QueryTypes.SELECT,
    });
    expect(after.ct.equals(before.ct)).toBe(false);
  });

  it.each([
    ['a bad cron', { syncScheduleCron: '* * *' }],
    ['projectIds of another workspace', { projectIds: [2_000_000_000] }],
    ['a custom baseUrl removed', { config: {} }],
    ['an unknown field', { workspaceId: 1 }],
    ['a providerType change', { providerType: 'QUICKBOOKS' }],
  ])('refuses %s with 400 and changes nothing', async (_label, patch) => {
    const c = await createConnection(w, { providerType: 'ACME_LEDGER', config: { baseUrl: 'https://ledger.example.com' } });
    expectErrorBody(await api.patch(`/accounting/connections/${c.id}`, patch, { token: w.token }), 400, 'BAD_REQUEST');
    expect((await api.get(`/accounting/connections/${c.id}`, { token: w.token })).body).toEqual(c);
  });

  it('clears syncScheduleCron with null', async () => {
    const c = await createConnection(w, { syncScheduleCron: '0 * * * *' });
    const res = await api.patch(`/accounting/connections/${c.id}`, { syncScheduleCron: null }, { token: w.token });
    expect(res.body.syncScheduleCron).toBeNull();
  });
});

describe('DELETE /accounting/connections/{id}', () => {
  it('deactivates: the connection stays readable with isActive false, and can be reactivated by PATCH', async () => {
    const c = await createConnection(w);
    const res = await api.del(`/accounting/connections/${c.id}`, { token: w.token });
    expectStatus(res, 200);
    expect(res.body).toEqual({ success: true });
    expect((await api.get(`/accounting/connections/${c.id}`, { token: w.token })).body.isActive).toBe(false);
    const listed = await api.get('/accounting/connections', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(listed.body.find((x: any) => x.id === c.id).isActive).toBe(false);
    const back = await api.patch(`/accounting/connections/${c.id}`, { isActive: true }, { token: w.token });
    expect(back.body.isActive).toBe(true);
  });

  it('an inactive connection takes no reviews: backfill and manual review creation are 409', async () => {
    const c = await createConnection(w);
    await api.del(`/accounting/connections/${c.id}`, { token: w.token });
    expectErrorBody(await api.post(`/accounting/connections/${c.id}/backfill-reviews`, undefined, { token: w.token }), 409, 'CONFLICT');
    const entry = await w.api.post(
      '/entries',
      { projectId: w.projectId, entryType: 'EXPENSE', amountCents: 100, baseCurrency: 'USD', entryDate: '2026-01-10' },
      { token: w.token },
    );
    const res = await raw.post('/accounting/reviews', { entryId: entry.body.id, connectionId: c.id }, { token: w.token });
    expectErrorBody(res, 409, 'CONFLICT');
  });
});

describe('secrets never leave the service', () => {
  it('is encrypted at rest: no column of any connection holds a secret in plaintext, and every row has a key id', async () => {
    const rows = await db().query<{ id: string; text: string; credentials_kid: string; ct: Buffer; wct: Buffer | null }>(
      `SELECT id, row_to_json(c)::text AS text, credentials_kid, credentials_ciphertext AS ct, webhook_secret_ciphertext AS wct
         FROM accounting_connections c`,
      { type: QueryTypes.SELECT },
    );
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) {
      expect(row.credentials_kid).toBe(runtime().secrets.credentialsKeys[0].kid);
      for (const secret of Object.values(SECRETS)) {
        expect(row.text).not.toContain(secret);
        expect(row.ct.includes(Buffer.from(secret))).toBe(false);
        if (row.wct) expect(row.wct.includes(Buffer.from(secret))).toBe(false);
      }
    }
    const [table] = await db().query<{ text: string }>(`SELECT string_agg(c::text, '') AS text FROM accounting_connections c`, {
      type: QueryTypes.SELECT,
    });
    for (const secret of Object.values(SECRETS)) expect(table.text).not.toContain(secret);
  });

  it('no response body of any connection call in this file contains a credential or webhook secret', () => {
    const connectionCalls = responses.filter((r) => r.path.startsWith('/accounting/connections'));
    expect(connectionCalls.length).toBeGreaterThan(40);
    expect(connectionCalls.some((r) => r.res.status === 200 && r.method === 'GET')).toBe(true);
    for (const { method, path, res } of responses) {
      for (const secret of Object.values(SECRETS)) {
        expect(res.text.includes(secret), `${method} ${path} (${res.status}) leaks ${secret}`).toBe(false);
      }
      expect(res.text).not.toMatch(/credentials_ciphertext|"credentials"\s*:/);
    }
  });

  it('no log line written during this file contains a secret', () => {
    expect(logLines.length).toBeGreaterThan(40); // the access log saw the requests
    const all = logLines.join('');
    for (const secret of Object.values(SECRETS)) expect(all).not.toContain(secret);
  });
});
