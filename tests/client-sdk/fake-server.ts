import { vi } from 'vitest';

/** A scripted answer: a status with a JSON body, a raw body, a network failure, or no answer until aborted. */
export type Reply = { status: number; body?: unknown; raw?: string; headers?: Record<string, string> } | 'network-error' | 'hang';

export type Call = {
  path: string;
  method: string;
  auth: string | null;
  contentType: string | null;
  idempotencyKey: string | null;
  body: unknown;
  at: number;
};

export const BASE_URL = 'https://api.test';
export const USER = { id: '00000000-0000-4000-8000-000000000001', email: 'ada@example.com', name: 'Ada', permissions: [] };

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** An unsigned JWT whose payload carries `exp` (seconds); the client never verifies signatures. */
export function makeJwt(expSeconds: number, claims: Record<string, unknown> = {}): string {
  const header = base64url({ alg: 'HS256', typ: 'JWT' });
  const payload = base64url({ sub: USER.id, sid: 's1', iat: expSeconds - 900, exp: expSeconds, ...claims });
  return `${header}.${payload}.not-a-real-signature`;
}

export function tokenBody(token: string, expiresIn = 900) {
  return { access_token: token, token_type: 'Bearer', expires_in: expiresIn, user: USER };
}

/**
 * A fetch that answers by path from per-path queues; the last reply of a queue repeats.
 * Every call is recorded with the (fake) time it was made.
 */
export function fakeServer() {
  const replies = new Map<string, Reply[]>();
  const calls: Call[] = [];

  const fetch = vi.fn(async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(typeof input === 'object' && 'url' in input ? input.url : String(input));
    const headers = new Headers(init.headers);
    calls.push({
      path: url.pathname,
      method: init.method ?? 'GET',
      auth: headers.get('authorization'),
      contentType: headers.get('content-type'),
      idempotencyKey: headers.get('idempotency-key'),
      body: init.body,
      at: Date.now(),
    });
    const queue = replies.get(url.pathname);
    if (!queue || queue.length === 0) throw new Error(`no reply scripted for ${url.pathname}`);
    const reply = queue.length > 1 ? queue.shift()! : queue[0];
    if (reply === 'network-error') throw new TypeError('fetch failed');
    if (reply === 'hang') {
      return new Promise<Response>((_resolve, reject) => {
        const signal = init.signal;
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    }
    const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
    return new Response(reply.status === 204 ? null : text, {
      status: reply.status,
      headers: { 'content-type': reply.raw === undefined ? 'application/json' : 'text/plain', ...reply.headers },
    });
  });

  return {
    fetch,
    calls,
    reply(path: string, ...next: Reply[]) {
      replies.set(path, next);
    },
    callsTo(path: string) {
      return calls.filter((c) => c.path === path);
    },
  };
}
