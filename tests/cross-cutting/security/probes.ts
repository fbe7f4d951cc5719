import type { Api, ApiResponse } from '../../support/http.js';
import { expectErrorBody } from '../../support/http.js';
import type { Operation } from './operations.js';
import { formDataOf, type ProbeRequest } from './probe-requests.js';

/** Sending a probe over REST or tRPC, and judging its answer. */

export type Credentials = { token?: string; headers?: Record<string, string> };
export type Transport = 'rest' | 'trpc';

export async function sendRest(api: Api, req: ProbeRequest, creds: Credentials): Promise<ApiResponse> {
  return api.request(req.method, req.url, {
    token: creds.token,
    headers: creds.headers,
    query: req.query,
    body: req.body,
    rawBody: req.multipart ? formDataOf(req.multipart) : undefined,
  });
}

export async function sendTrpc(api: Api, op: Operation, req: ProbeRequest, creds: Credentials): Promise<ApiResponse> {
  const path = `/trpc/${op.procedure}`;
  if (op.procedureType === 'query') {
    return api.request('GET', path, { token: creds.token, headers: creds.headers, query: { input: JSON.stringify(req.input) } });
  }
  return api.request('POST', path, { token: creds.token, headers: creds.headers, body: req.input });
}

export function send(api: Api, transport: Transport, op: Operation, req: ProbeRequest, creds: Credentials): Promise<ApiResponse> {
  return transport === 'rest' ? sendRest(api, req, creds) : sendTrpc(api, op, req, creds);
}

const CODES: Record<number, string> = { 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND' };

/** The error shape of each transport: CONTRACT §2 on REST, the tRPC envelope with data.code/httpStatus on /trpc. */
export function errorShapeProblem(transport: Transport, res: ApiResponse): string | undefined {
  const code = CODES[res.status];
  if (!code) return `no error code known for ${res.status}`;
  if (transport === 'rest') {
    try {
      expectErrorBody(res, res.status, code);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }
  const e = res.body?.error;
  if (e?.data?.code !== code || e?.data?.httpStatus !== res.status || typeof e?.message !== 'string') {
    return `tRPC error envelope expected ${code}/${res.status}, got ${res.text.slice(0, 300)}`;
  }
  if (/\bat .+:\d+:\d+/.test(res.text)) return 'stack trace in tRPC error body';
  return undefined;
}

/** Secrets of the attacked tenant found in the answer, leaving out those the request itself carried. */
export function leakedSecrets(res: ApiResponse, req: ProbeRequest | undefined, secrets: string[]): string[] {
  const sent = req ? JSON.stringify([req.url, req.query, req.body, req.input]) : '';
  const disposition = res.headers.get('content-disposition') ?? '';
  return secrets.filter((s) => !sent.includes(s) && (res.text.includes(s) || disposition.includes(s)));
}

export async function inPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}
