import { ApiError } from './errors.js';
import { joinUrl } from './paths.js';
import { newIdempotencyKey } from './retry.js';
import type { FetchLike } from './session.js';

export type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue | readonly QueryValue[]>;

export interface RequestOptions {
  /** Appended as a query string; arrays repeat the key, null and undefined are left out. */
  query?: Query;
  /** Sent as JSON when given. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface SendOptions extends Omit<RequestOptions, 'body'> {
  /** Sent as it is (FormData, Blob, bytes, text); the content type is the caller's or fetch's. */
  body?: RequestInit['body'];
}

export interface RestClient {
  /**
   * Sends a request with the client's credentials; resolves the parsed body, throws ApiError on
   * non-2xx. A POST carries an Idempotency-Key (the one in `headers`, else a new one) reused by its retries.
   */
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T>;
  /** As `request`, but resolves the raw response (body unread). */
  send(method: string, path: string, options?: SendOptions): Promise<Response>;
}

export function createRestClient(deps: { baseUrl: string; fetch: FetchLike }): RestClient {
  const send = async (method: string, path: string, options: SendOptions = {}): Promise<Response> => {
    const headers = new Headers(options.headers);
    const verb = method.toUpperCase();
    if (verb === 'POST' && !headers.has('idempotency-key')) headers.set('idempotency-key', newIdempotencyKey());
    const res = await deps.fetch(joinUrl(deps.baseUrl, path) + queryString(options.query), {
      method: verb,
      headers,
      body: options.body,
      signal: options.signal,
    });
    if (!res.ok) throw await ApiError.fromResponse(res);
    return res;
  };
  return {
    send,
    async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
      const headers = new Headers(options.headers);
      if (!headers.has('accept')) headers.set('accept', 'application/json');
      if (options.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
      const res = await send(method, path, {
        ...options,
        headers: Object.fromEntries(headers),
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      return (await readBody(res)) as T;
    },
  };
}

export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    const values: readonly QueryValue[] = Array.isArray(value) ? value : [value as QueryValue];
    for (const v of values) if (v !== undefined && v !== null) params.append(key, String(v));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  return (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
}
