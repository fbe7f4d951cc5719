import { ApiError } from './errors.js';
import { joinUrl } from './paths.js';
import type { FetchLike, SessionManager } from './session.js';

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  /** Appended as a query string; arrays repeat the key, null and undefined are left out. */
  query?: Record<string, QueryValue | readonly QueryValue[]>;
  /** Sent as JSON when given. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface RestClient {
  /** Sends a request with the bearer token; resolves the parsed body, throws ApiError on non-2xx. */
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T>;
}

export function createRestClient(deps: { baseUrl: string; fetch: FetchLike; session: SessionManager }): RestClient {
  return {
    async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
      const headers = new Headers(options.headers);
      if (!headers.has('accept')) headers.set('accept', 'application/json');
      if (options.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
      const token = deps.session.getToken();
      if (token && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
      const res = await deps.fetch(joinUrl(deps.baseUrl, path) + queryString(options.query), {
        method: method.toUpperCase(),
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
      });
      if (!res.ok) throw await ApiError.fromResponse(res);
      return (await readBody(res)) as T;
    },
  };
}

function queryString(query: RequestOptions['query']): string {
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
