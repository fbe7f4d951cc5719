import { randomBytes } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { trySessionLock, type SessionLock } from '../../../server/db/session-locks.js';
import { clock } from '../../../server/lib/clock.js';
import { runtime } from '../../../server/runtime.js';
import { rotateStoredResponses, responseBodyOf, type KeyRow } from '../../../server/http/idempotency-store.js';
import {
  createEntry,
  entryWorld,
  type EntryWorld,
  actor,
  integrationWorld,
  type IntegrationWorld,
  form,
  pdf,
} from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { item } from '../../integrations/helpers.js';

/**
 * Issue 18 on Idempotency-Key (CONTRACT §1): replays only to a caller who could make the request
 * now, rows only for authenticated callers, responses sealed at rest and purged when expired,
 * multipart bodies compared by their bytes, and a 503 (not a late 500) when every lock is taken.
 */
let api: Api;
let w: EntryWorld;
let feed: IntegrationWorld;

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
  feed = await integrationWorld(api);
});
afterEach(() => clock.reset());

type Row = KeyRow & { caller: string; key: string };
const rowsOf = (key: string) =>
  db().query<Row>('SELECT * FROM idempotency_keys WHERE key = :key', { replacements: { key }, type: QueryTypes.SELECT });
const entryBody = (reference: string) => ({
  projectId: w.projectId,
  entryType: 'EXPENSE',
  amountCents: 1_500,
  baseCurrency: 'USD',
  entryDate: '2026-01-20',
  reference,
});
const newKey = () => `k-${randomBytes(6).toString('hex')}`;

describe('a replay needs a caller who could make the request now', () => {
  it('after logout the same keyed request is a 401, not a replay', async () => {
    const { token } = await actor(api, { workspaceId: w.workspaceId });
    const key = newKey();
    const opts = { token, headers: { 'Idempotency-Key': key } };
    expect((await api.post('/entries', entryBody(key), opts)).status).toBe(200);
    expect((await api.post('/auth/logout', undefined, { token })).status).toBe(200);
    expectErrorBody(await api.get('/auth/me', { token }), 401, 'UNAUTHORIZED');
    const again = await api.post('/entries', entryBody(key), opts);
    expectErrorBody(again, 401, 'UNAUTHORIZED');
    expect(again.headers.get('idempotency-replayed')).toBeNull();
  });

  it('a revoked API key gets 401 instead of the ingest replay', async () => {
    const f = await integrationWorld(api);
    const key = newKey();
    const send = () =>
      api.post('/api/v1/ingest', { entries: [item(f.projectIds[0], key)] }, { headers: { 'X-API-Key': f.apiKey, 'Idempotency-Key': key } });
    expect((await send()).status).toBe(200);
    expect((await send()).headers.get('idempotency-replayed')).toBe('true');
    expect((await api.del(`/integrations/${f.integration.id}`, { token: f.token })).status).toBe(200);
    const again = await send();
    expectErrorBody(again, 401, 'UNAUTHORIZED');
    expect(again.headers.get('idempotency-replayed')).toBeNull();
  });

  it('a request that fails authentication stores nothing: unknown API keys, bad or revoked tokens', async () => {
    const key = newKey();
    const headers = { 'Idempotency-Key': key };
    expectErrorBody(
      await api.post('/api/v1/ingest', { entries: [] }, { headers: { ...headers, 'X-API-Key': `fes_live_AbCdEfGh_${'x'.repeat(40)}` } }),
      401,
      'UNAUTHORIZED',
    );
    expectErrorBody(
      await api.post('/api/v1/ingest', { entries: [] }, { headers: { ...headers, 'X-API-Key': 'anything' } }),
      401,
      'UNAUTHORIZED',
    );
    expectErrorBody(await api.post('/entries', entryBody(key), { token: 'not.a.token', headers }), 401, 'UNAUTHORIZED');
    const { token } = await actor(api, { workspaceId: w.workspaceId });
    await api.post('/auth/logout', undefined, { token });
    expectErrorBody(await api.post('/entries', entryBody(key), { token, headers }), 401, 'UNAUTHORIZED');
    expect(await rowsOf(key)).toHaveLength(0);
  });
});

describe('a route with its own credential', () => {
  it('ingest with a bearer token and no X-API-Key is a 401, also under a key the token used elsewhere (not a 409), and stores nothing', async () => {
    const key = newKey();
    const opts = { token: w.token, headers: { 'Idempotency-Key': key } };
    expect((await api.post('/entries', entryBody(key), opts)).status).toBe(200);
    // the token is not ingest's credential: it keys nothing there, so this is not "the same key on another path"
    expectErrorBody(await api.post('/api/v1/ingest', { entries: [item(feed.projectIds[0], key)] }, opts), 401, 'UNAUTHORIZED');
    expect((await rowsOf(key)).map((r) => r.caller)).toEqual([expect.stringMatching(/^user:/)]);
  });
});

describe('stored responses are sealed and purged', () => {
  it('POST /integrations with a key: the apiKey is nowhere in the row in plain text, and the replay still shows it', async () => {
    const key = newKey();
    const opts = { token: feed.token, headers: { 'Idempotency-Key': key } };
    const first = await api.post('/integrations', { workspaceId: feed.workspaceId, name: 'Sealed' }, opts);
    expect(first.status).toBe(200);
    const apiKey: string = first.body.apiKey;
    const [row] = await rowsOf(key);
    expect(row.state).toBe('DONE');
    expect(row.response_kid).toBe(runtime().secrets.credentialsKeys[0].kid);
    const [{ dump }] = await db().query<{ dump: string }>(`SELECT t::text AS dump FROM idempotency_keys t WHERE key = :key`, {
      replacements: { key },
      type: QueryTypes.SELECT,
    });
    expect(dump).not.toContain(apiKey);
    expect(dump).not.toContain(Buffer.from(apiKey).toString('hex'));
    const again = await api.post('/integrations', { workspaceId: feed.workspaceId, name: 'Sealed' }, opts);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('a sealed response opens only in its own row, and key rotation re-seals it', async () => {
    const key = newKey();
    expect((await api.post('/entries', entryBody(key), { token: w.token, headers: { 'Idempotency-Key': key } })).status).toBe(200);
    const [row] = await rowsOf(key);
    expect(JSON.parse(responseBodyOf(row.caller, key, row)).reference).toBe(key);
    expect(() => responseBodyOf(row.caller, `${key}x`, row)).toThrow();
    const k2 = { kid: 'rot2', key: randomBytes(32) };
    const keys = [k2, ...runtime().secrets.credentialsKeys];
    const result = await rotateStoredResponses(keys);
    expect(result.reencrypted).toBe(result.responses);
    expect(await rotateStoredResponses(keys)).toEqual({ responses: result.responses, reencrypted: 0 });
    const [rotated] = await rowsOf(key);
    expect(rotated.response_kid).toBe('rot2');
    expect(JSON.parse(responseBodyOf(row.caller, key, rotated, [k2])).reference).toBe(key);
  });

  it('expired keys are deleted, whoever they belong to, when the next key is claimed', async () => {
    const t0 = Date.now();
    const old = newKey();
    clock.set(() => new Date(t0));
    expect((await api.post('/entries', entryBody(old), { token: w.token, headers: { 'Idempotency-Key': old } })).status).toBe(200);
    expect(await rowsOf(old)).toHaveLength(1);
    clock.set(() => new Date(t0 + 24 * 3_600_000 + 60_000));
    const fresh = newKey();
    const { token } = await actor(api);
    expect((await api.post('/workspaces', { name: 'Purger' }, { token, headers: { 'Idempotency-Key': fresh } })).status).toBe(200);
    expect(await rowsOf(old)).toHaveLength(0);
  });
});

describe('a multipart request is the same request only when its bytes are', () => {
  const send = async (entryId: number, key: string, bytes: Buffer) =>
    api.request('POST', `/entries/${entryId}/documents/upload`, {
      token: w.token,
      query: { workspaceId: w.workspaceId },
      headers: { 'Idempotency-Key': key },
      rawBody: form({ bytes, name: 'receipt.pdf' }),
    });

  it('another file of the same size under the same key is a 409; the same file again is a replay', async () => {
    const entry = await createEntry(w);
    const key = newKey();
    const a = pdf('receipt-AAAA');
    const b = pdf('receipt-BBBB');
    expect(a.length).toBe(b.length);
    const first = await send(entry.id, key, a);
    expect(first.status, first.text).toBe(200);
    expectErrorBody(await send(entry.id, key, b), 409, 'CONFLICT');
    const same = await send(entry.id, key, a); // a new multipart boundary, the same parts and bytes
    expect(same.status).toBe(200);
    expect(same.headers.get('idempotency-replayed')).toBe('true');
    expect(same.body).toEqual(first.body);
    const docs = await api.get(`/entries/${entry.id}/documents`, { token: w.token });
    expect(docs.body).toHaveLength(1);
  });

  it('a keyed upload over the limit is a 413 and stores nothing', async () => {
    const entry = await createEntry(w);
    const key = newKey();
    const limit = runtime().config.UPLOAD_LIMIT_BYTES;
    const res = await send(entry.id, key, Buffer.concat([pdf(), Buffer.alloc(limit + 128 * 1024)]));
    expectErrorBody(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(await rowsOf(key)).toHaveLength(0);
  });
});

describe('when every lock is held', () => {
  it('the next keyed request is a 503 with Retry-After at once (not a 500 after 10 s), then works again', async () => {
    const held: SessionLock[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const lock = await trySessionLock(`filler-${i}-${randomBytes(4).toString('hex')}`);
        held.push(lock!);
      }
      const key = newKey();
      const started = performance.now();
      const res = await api.post('/entries', entryBody(key), { token: w.token, headers: { 'Idempotency-Key': key } });
      expect(performance.now() - started).toBeLessThan(5_000);
      expectErrorBody(res, 503, 'SERVICE_UNAVAILABLE');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await rowsOf(key)).toHaveLength(0);
    } finally {
      await Promise.all(held.map((l) => l.release()));
    }
    const key = newKey();
    expect((await api.post('/entries', entryBody(key), { token: w.token, headers: { 'Idempotency-Key': key } })).status).toBe(200);
  });
});
