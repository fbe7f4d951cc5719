import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { afterAll } from 'vitest';
import { createApp } from '../../server/app.js';
import { scanResponse } from '../cross-cutting/security/secret-scan.js';
import { messageProblem } from './error-messages.js';

export { registerSecret, scannedResponses } from '../cross-cutting/security/secret-scan.js';

export type ApiResponse<T = any> = { status: number; body: T; headers: Headers; text: string };

export type RequestOptions = {
  token?: string;
  body?: unknown;
  rawBody?: string | Buffer | FormData;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
};

export type Api = {
  baseUrl: string;
  request: <T = any>(method: string, path: string, opts?: RequestOptions) => Promise<ApiResponse<T>>;
  get: <T = any>(path: string, opts?: RequestOptions) => Promise<ApiResponse<T>>;
  post: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => Promise<ApiResponse<T>>;
  patch: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => Promise<ApiResponse<T>>;
  put: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => Promise<ApiResponse<T>>;
  del: <T = any>(path: string, opts?: RequestOptions) => Promise<ApiResponse<T>>;
};

let shared: Promise<Api> | undefined;

/** The real app on an ephemeral loopback port, one per test file, called over real HTTP. */
export function startServer(): Promise<Api> {
  shared ??= (async () => {
    const server = http.createServer(createApp());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return client(baseUrl);
  })();
  return shared;
}

/**
 * The sweep of issue 37 over every 4xx the suites provoke through this client (the access matrix,
 * fuzz and probe suites included): its message must read as a sentence with balanced quotes and
 * brackets (tests/support/error-messages.ts); otherwise the request throws, naming the message.
 */
function checkErrorMessage(method: string, path: string, status: number, body: unknown): void {
  if (status < 400 || status >= 500 || !body || typeof body !== 'object') return;
  const message = (body as { message?: unknown }).message;
  if (typeof message !== 'string') return;
  const problem = messageProblem(message);
  if (problem) throw new Error(`${method} ${path} → ${status}: the error message ${problem}: ${JSON.stringify(message)}`);
}

export function client(baseUrl: string): Api {
  const request = async <T>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> => {
    const url = new URL(path, baseUrl);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    let body: RequestInit['body'];
    if (opts.rawBody !== undefined) body = opts.rawBody as RequestInit['body'];
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    scanResponse(method, url.pathname, text, parsed === text ? undefined : parsed); // no secret in any response
    checkErrorMessage(method, url.pathname, res.status, parsed); // every 4xx message reads as a sentence
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  };
  return {
    baseUrl,
    request,
    get: (p, o) => request('GET', p, o),
    post: (p, b, o) => request('POST', p, { ...o, body: b }),
    patch: (p, b, o) => request('PATCH', p, { ...o, body: b }),
    put: (p, b, o) => request('PUT', p, { ...o, body: b }),
    del: (p, o) => request('DELETE', p, o),
  };
}

/** The contract's error body (CONTRACT §2). */
export function expectErrorBody(res: ApiResponse, status: number, code: string): void {
  if (res.status !== status || res.body?.code !== code || typeof res.body?.message !== 'string') {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${res.text}`);
  }
  const keys = Object.keys(res.body).filter((k) => !['message', 'code', 'issues'].includes(k));
  if (keys.length) throw new Error(`unexpected keys in error body: ${keys.join(',')}`);
  if (/\bat .+:\d+:\d+/.test(res.text)) throw new Error('stack trace in error body');
}
