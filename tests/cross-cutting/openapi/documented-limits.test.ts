import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config.js';
import { addIntegerFormats } from '../../../server/trpc/openapi-integer-formats.js';
import { ERROR_ISSUES_MAX, ERROR_MESSAGE_MAX } from '../../../shared/contracts/common.js';
import { actor, buildWorkspace, entryWithWorld, pdf, upload } from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';

/**
 * Limits that openapi.json documents for the OWASP checks (npm run openapi:owasp) and that are
 * new rules a client can meet: record keys, the bounded error body, the JWT issuer/audience
 * settings, the integer formats derived from the schemas' bounds, and the statuses a body or a
 * limit can bring (413, 415, 429, 503) on every operation that can answer them.
 */

let api: Api;
let token: string;
let workspaceId: number;
let projectId: number;

beforeAll(async () => {
  api = await startServer();
  const ws = await buildWorkspace();
  workspaceId = ws.id;
  projectId = ws.projectIds[0];
  token = (await actor(api, { workspaceId })).token;
});

const connection = (credentials: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  api.post('/accounting/connections', { workspaceId, providerType: 'MANUAL', name: 'Books', credentials, ...extra }, { token });

describe('record keys (documented maxLength 200)', () => {
  it('accepts a credentials key of 200 characters and refuses one of 201 with 400', async () => {
    const accepted = await connection({ ['k'.repeat(200)]: 'v' });
    expect(accepted.status, accepted.text).toBe(200);
    const refused = await connection({ ['k'.repeat(201)]: 'v' });
    expectErrorBody(refused, 400, 'BAD_REQUEST');
    expect(refused.body.issues?.[0]?.path).toEqual(['credentials', 'k'.repeat(201)]);
  });

  it('refuses a webhook whose changes carry a key longer than 200 characters (400)', async () => {
    const created = await connection({});
    expect(created.status, created.text).toBe(200);
    const url = `/webhooks/accounting/${created.body.id}`;
    const body = (key: string) => ({ eventId: `evt-${key.length}`, action: 'ENTRY_UPDATED', entryId: 1, changes: { [key]: 1 } });
    const refused = await api.post(url, body('c'.repeat(201)));
    expectErrorBody(refused, 400, 'BAD_REQUEST');
    expect(refused.body.issues?.[0]?.path).toEqual(['changes', 'c'.repeat(201)]);
    // the same event with a 200-character key passes validation and reaches the entry lookup
    expectErrorBody(await api.post(url, body('c'.repeat(200))), 404, 'NOT_FOUND');
  });
});

describe('error bodies (documented message maxLength and issues maxItems)', () => {
  it(`cuts a message longer than ${ERROR_MESSAGE_MAX} characters`, async () => {
    // 1000 foreign project ids: the message lists them all (about 11 000 characters before the cut)
    const projectIds = Array.from({ length: 1000 }, (_, i) => 2_000_000_000 + i);
    const res = await connection({}, { projectIds });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.message).toMatch(/^projectIds are not projects of this workspace: 2000000000, 2000000001, /);
    expect(res.body.message).toHaveLength(ERROR_MESSAGE_MAX);
    expect(res.body.message.endsWith('…')).toBe(true);
  });

  it('keeps a short message as it is', async () => {
    const res = await connection({}, { projectIds: [2_000_000_000] });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.message).toBe('projectIds are not projects of this workspace: 2000000000');
  });

  it(`returns the first ${ERROR_ISSUES_MAX} zod issues of a body with more`, async () => {
    // 500 empty line items: each misses description, unitAmountCents and amountCents
    const res = await api.post(
      '/entries',
      { projectId, entryType: 'EXPENSE', baseCurrency: 'USD', amountCents: 100, entryDate: '2026-01-15', items: Array(500).fill({}) },
      { token },
    );
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues).toHaveLength(ERROR_ISSUES_MAX);
    expect(res.body.issues[0].path).toEqual(['items', 0, 'description']);
  });

  it('keeps every issue when there are fewer', async () => {
    const res = await api.post('/entries', { projectId, entryType: 'EXPENSE', items: [{}] }, { token });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues.length).toBeGreaterThan(1);
    expect(res.body.issues.length).toBeLessThan(ERROR_ISSUES_MAX);
  });
});

describe('configuration', () => {
  it('refuses a JWT_ISSUER or JWT_AUDIENCE longer than 200 characters (the access token documents its maxLength)', () => {
    const env = { JWT_SECRET: 's'.repeat(32) };
    expect(() => loadConfig({ ...env, JWT_ISSUER: 'i'.repeat(201) })).toThrow(/JWT_ISSUER/);
    expect(() => loadConfig({ ...env, JWT_AUDIENCE: 'a'.repeat(201) })).toThrow(/JWT_AUDIENCE/);
    expect(loadConfig({ ...env, JWT_ISSUER: 'i'.repeat(200), JWT_AUDIENCE: 'a'.repeat(200) }).JWT_ISSUER).toHaveLength(200);
  });
});

describe('integer formats', () => {
  const formatted = (schema: Record<string, unknown>) => {
    const doc = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/x': { get: { schema } } } };
    addIntegerFormats(doc as never);
    return schema.format;
  };

  it('derives int32 from 32-bit bounds and int64 from wider safe-integer bounds', () => {
    expect(formatted({ type: 'integer', exclusiveMinimum: 0, maximum: 2_147_483_647 })).toBe('int32');
    expect(formatted({ type: 'integer', minimum: -2_147_483_648, maximum: 2_147_483_647 })).toBe('int32');
    expect(formatted({ type: 'integer', minimum: 0, maximum: 2_147_483_648 })).toBe('int64');
    expect(formatted({ type: ['integer', 'null'], minimum: -9_007_199_254_740_991, maximum: 9_007_199_254_740_991 })).toBe('int64');
    expect(formatted({ type: 'integer', format: 'int32', minimum: 1, maximum: 5 })).toBe('int32');
  });

  it('refuses an integer without both bounds or beyond the safe-integer range', () => {
    expect(() => formatted({ type: 'integer', minimum: 0 })).toThrow(/without both bounds/);
    expect(() => formatted({ type: 'integer', minimum: 0, maximum: 2 ** 60 })).toThrow(/beyond the safe range/);
  });
});

type DocOperation = {
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { headers?: Record<string, unknown> }>;
};

describe('statuses every operation documents by its shape (413, 415, 429, 503)', () => {
  const MIB = 1024 * 1024;
  let operations: { method: string; path: string; op: DocOperation }[];

  beforeAll(async () => {
    const doc = (await api.get('/openapi.json')).body as { paths: Record<string, Record<string, DocOperation>> };
    operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })));
  });

  it('lists 413 and 415 on every POST, PATCH and PUT with a request body, 503 with Retry-After on every operation', () => {
    const withBody = operations.filter(({ method, op }) => ['post', 'patch', 'put'].includes(method) && op.requestBody);
    expect(withBody.length).toBeGreaterThan(50);
    for (const { method, path, op } of withBody) {
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['413', '415']));
    }
    // every operation needs the database: while it fails over, the answer is a 503 (CONTRACT §22)
    expect(operations.length).toBeGreaterThan(150);
    for (const { method, path, op } of operations) {
      expect(op.responses['503']?.headers?.['Retry-After'], `${method} ${path}`).toBeDefined();
    }
    // multipart uploads and the express JSON routes (ingest, provider webhooks) are among them
    const kinds = new Set(withBody.flatMap(({ op }) => Object.keys(op.requestBody!.content)));
    expect([...kinds].sort()).toEqual(['application/json', 'multipart/form-data']);
  });

  it('lists 413 and 415 on a REST procedure that reads a body without declaring fields (PATCH …/close)', () => {
    const close = operations.find(({ method, path }) => method === 'patch' && path === '/accounting/periods/{id}/close')!;
    expect(close.op.requestBody).toBeUndefined();
    expect(Object.keys(close.op.responses)).toEqual(expect.arrayContaining(['413', '415']));
  });

  it('lists 429 with Retry-After on the rate-limited operations (login, ingest) and nowhere without it', () => {
    const limited = operations.filter(({ op }) => op.responses['429']).map(({ method, path }) => `${method} ${path}`);
    expect(limited.sort()).toEqual(['post /api/v1/ingest', 'post /auth/login']);
    for (const { op } of operations.filter(({ op }) => op.responses['429']))
      expect(op.responses['429']!.headers?.['Retry-After']).toBeDefined();
  });

  it('answers 413 and 415 on a JSON operation (POST /entries) as documented', async () => {
    const big = JSON.stringify({ projectId, description: 'x'.repeat(MIB) });
    const headers = { 'Content-Type': 'application/json' };
    expectErrorBody(await api.request('POST', '/entries', { token, rawBody: big, headers }), 413, 'PAYLOAD_TOO_LARGE');
    const text = { 'Content-Type': 'text/plain' };
    expectErrorBody(await api.request('POST', '/entries', { token, rawBody: 'projectId=1', headers: text }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    // a procedure without declared body fields checks the media type of a body all the same
    const close = '/accounting/periods/00000000-0000-4000-8000-000000000000/close';
    expectErrorBody(await api.request('PATCH', close, { token, rawBody: 'x', headers: text }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 415 on the express JSON routes (ingest, provider webhooks) for a body that is not JSON', async () => {
    const text = { 'Content-Type': 'text/plain' };
    const ingest = await api.request('POST', '/api/v1/ingest', {
      rawBody: '{"entries":[]}',
      headers: { ...text, 'X-API-Key': 'fes_live_x' },
    });
    expectErrorBody(ingest, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const webhook = await api.request('POST', '/webhooks/accounting/00000000-0000-4000-8000-000000000000', {
      rawBody: '{}',
      headers: text,
    });
    expectErrorBody(webhook, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 413 and 415 on a multipart operation (document upload) as documented', async () => {
    const { w, entry } = await entryWithWorld(api);
    const over = Buffer.concat([pdf(), Buffer.alloc(25 * MIB + 1, 0x20)]);
    expectErrorBody(await upload(w, entry.id, { bytes: over, name: 'big.pdf' }), 413, 'PAYLOAD_TOO_LARGE');
    const url = `/entries/${entry.id}/documents/upload?workspaceId=${w.workspaceId}`;
    const asJson = await api.request('POST', url, {
      token: w.token,
      rawBody: '{"file":"x"}',
      headers: { 'Content-Type': 'application/json' },
    });
    expectErrorBody(asJson, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});
