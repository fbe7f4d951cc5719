import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { actor } from '../../support/factories/index.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

describe('HTTP surface', () => {
  it('healthz and readyz answer ok', async () => {
    expect(await api.get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await api.get('/readyz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('echoes X-Request-Id, or makes one', async () => {
    const echoed = await api.get('/healthz', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const made = await api.get('/healthz');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await api.get('/healthz', { headers: { 'X-Request-Id': 'a b<script>' } });
    expect(hostile.headers.get('x-request-id')).not.toBe('a b<script>');
  });

  it('sends security headers', async () => {
    const res = await api.get('/healthz');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('answers unknown routes with a JSON 404 in the error shape', async () => {
    expectErrorBody(await api.get('/no/such/route'), 404, 'NOT_FOUND');
    expectErrorBody(await api.post('/no/such/route', {}), 404, 'NOT_FOUND');
  });

  it('answers malformed JSON and oversized bodies with the error shape', async () => {
    expectErrorBody(
      await api.request('POST', '/auth/login', { rawBody: '{"email":', headers: { 'Content-Type': 'application/json' } }),
      400,
      'BAD_REQUEST',
    );
    const huge = JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(1_100_000) });
    expectErrorBody(
      await api.request('POST', '/auth/login', { rawBody: huge, headers: { 'Content-Type': 'application/json' } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('answers JSON nested thousands of levels deep with a 400, not a 500 (found by the fuzzer)', async () => {
    const user = await actor(api);
    for (const rawBody of ['['.repeat(5000) + ']'.repeat(5000), '{"name":'.repeat(3000) + '1' + '}'.repeat(3000)]) {
      const res = await api.request('POST', '/workspaces', { token: user.token, rawBody, headers: { 'Content-Type': 'application/json' } });
      expectErrorBody(res, 400, 'BAD_REQUEST');
      expect(res.body.message).toMatch(/nested deeper/);
    }
  });

  it('accepts JSON with a charset parameter', async () => {
    const res = await api.request('POST', '/auth/login', {
      rawBody: JSON.stringify({ email: 'nobody@example.test', password: 'whatever-it-is' }),
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expectErrorBody(res, 401, 'UNAUTHORIZED');
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const doc = await api.get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(doc.body.paths['/auth/login'].post.operationId).toBe('login');
    const page = await api.get('/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger-ui');
    expect((await api.get('/docs/assets/swagger-ui-bundle.js')).status).toBe(200);
  });
});

describe('text the database cannot store', () => {
  it('a NUL character in a text field is a 400, not a 500', async () => {
    const { buildWorkspace, actor } = await import('../../support/factories/index.js');
    const ws = await buildWorkspace();
    const { token } = await actor(api, { workspaceId: ws.id });
    const res = await api.post(
      '/entries',
      {
        projectId: ws.projectIds[0],
        entryType: 'EXPENSE',
        baseCurrency: 'USD',
        amountCents: 100,
        entryDate: '2026-01-01',
        description: 'a\u0000b',
      },
      { token },
    );
    expectErrorBody(res, 400, 'BAD_REQUEST');
    const list = await api.get('/entries', { token, query: { workspaceId: ws.id } });
    expect(list.body.total).toBe(0);
  });
});
