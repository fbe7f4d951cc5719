import { describe, expect, it } from 'vitest';
import { ApiError, createIngestClient, fileNameOf } from '../../client-sdk/src/index.js';

/** The SDK's parsing of headers and error answers, without a server. */

describe('fileNameOf (Content-Disposition)', () => {
  it('prefers the RFC 5987 filename* and decodes it', () => {
    expect(fileNameOf(`attachment; filename="Rechnung M_rz.pdf"; filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf`)).toBe('Rechnung März.pdf');
  });

  it('reads a quoted filename with escaped quotes, or a bare token', () => {
    expect(fileNameOf('attachment; filename="a \\"b\\".csv"')).toBe('a "b".csv');
    expect(fileNameOf('attachment; filename=report.pdf')).toBe('report.pdf');
  });

  it('falls back to the plain name when filename* is malformed, and gives null without a name', () => {
    expect(fileNameOf(`attachment; filename="x.pdf"; filename*=UTF-8''%E0%A4%A.pdf`)).toBe('x.pdf');
    expect(fileNameOf('attachment')).toBeNull();
    expect(fileNameOf(null)).toBeNull();
  });
});

describe('ApiError.fromResponse', () => {
  it('keeps status, code, message and issues of the body, the request id and Retry-After', async () => {
    const res = new Response(JSON.stringify({ message: 'Too many requests', code: 'TOO_MANY_REQUESTS', issues: [{ path: ['x'] }] }), {
      status: 429,
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', 'retry-after': '42' },
    });
    const error = await ApiError.fromResponse(res);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      message: 'Too many requests',
      requestId: 'req-1',
      retryAfterSeconds: 42,
    });
    expect(error.issues).toEqual([{ path: ['x'] }]);
  });

  it('derives the code from the status when the body is not the service error shape', async () => {
    const error = await ApiError.fromResponse(new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    expect(error).toMatchObject({ status: 502, code: 'INTERNAL_SERVER_ERROR', message: 'Bad Gateway' });
    expect(error.requestId).toBeUndefined();
    expect(error.retryAfterSeconds).toBeUndefined();
  });
});

describe('createIngestClient', () => {
  it('posts {entries} to /api/v1/ingest with X-API-Key and Idempotency-Key, under a base path', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const fetch = async (url: string | URL | Request, init?: RequestInit) => {
      calls.push({ url: String(url), init: init! });
      return new Response(JSON.stringify({ created: 0, duplicates: 0, failed: 0, results: [] }), {
        headers: { 'content-type': 'application/json' },
      });
    };
    const client = createIngestClient({ baseUrl: 'https://finance.example.com/api/', apiKey: 'fes_key', fetch });
    await client.ingest([], { idempotencyKey: 'batch-7' });
    expect(calls[0]!.url).toBe('https://finance.example.com/api/api/v1/ingest');
    const headers = new Headers(calls[0]!.init.headers);
    expect(headers.get('x-api-key')).toBe('fes_key');
    expect(headers.get('idempotency-key')).toBe('batch-7');
    expect(calls[0]!.init.body).toBe('{"entries":[]}');
  });
});
