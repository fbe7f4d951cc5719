import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  createClient,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  type LogoutReason,
  type WebhookEvent,
} from '../../client-sdk/src/index.js';
import { backoffMs, MAX_BACKOFF_MS } from '../../client-sdk/src/retry.js';
import { BASE_URL, USER, fakeServer, makeJwt, tokenBody, type Reply } from './fake-server.js';

const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);
const TOKEN = makeJwt(T0 / 1000 + 900);
const API_KEY = 'fes_demo1234_5Wq9xYtRk2LmNpQs8VbC3dFg7HjK4ZaE6uIo1Tr0';
const ME = { result: { data: { ...USER, isActive: true, memberships: [] } } };

function trpcError(httpStatus: number, code: string, message: string, headers?: Record<string, string>): Reply {
  return { status: httpStatus, headers, body: { error: { message, code: -32001, data: { code, httpStatus, path: 'x' } } } };
}

function client(options: Partial<Parameters<typeof createClient>[0]> = {}) {
  const server = fakeServer();
  const onLogout = vi.fn<(reason: LogoutReason) => void>();
  const api = createClient({ baseUrl: BASE_URL, fetch: server.fetch, onLogout, ...options } as Parameters<typeof createClient>[0]);
  return { server, onLogout, api };
}

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
  vi.spyOn(Math, 'random').mockReturnValue(1); // jitter at its top: backoff of exactly 500 ms, 1 s, …
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('apiKey', () => {
  it('sends Authorization: Bearer <key> on tRPC and REST without logging in', async () => {
    const { server, api } = client({ apiKey: API_KEY });
    server.reply('/trpc/auth.me', { status: 200, body: ME });
    server.reply('/workspaces', { status: 200, body: [] });
    await api.trpc.auth.me.query();
    await api.rest.request('GET', '/workspaces');
    expect(server.calls.map((c) => [c.path, c.auth])).toEqual([
      ['/trpc/auth.me', `Bearer ${API_KEY}`],
      ['/workspaces', `Bearer ${API_KEY}`],
    ]);
  });

  it('throws AuthenticationError on a revoked key without ending a session', async () => {
    const { server, api, onLogout } = client({ apiKey: API_KEY });
    server.reply('/workspaces', { status: 401, body: { message: 'Invalid API key', code: 'UNAUTHORIZED' } });
    await expect(api.rest.request('GET', '/workspaces')).rejects.toBeInstanceOf(AuthenticationError);
    expect(onLogout).not.toHaveBeenCalled();
  });
});

describe('credentials', () => {
  it('logs in once for calls made at once, then sends the token', async () => {
    const { server, api } = client({ credentials: { email: USER.email, password: 'secret' } });
    server.reply('/auth/login', { status: 200, body: tokenBody(TOKEN) });
    server.reply('/trpc/auth.me', { status: 200, body: ME });
    server.reply('/workspaces', { status: 200, body: [] });
    await Promise.all([api.trpc.auth.me.query(), api.rest.request('GET', '/workspaces')]);
    expect(server.callsTo('/auth/login')).toHaveLength(1);
    expect(JSON.parse(server.callsTo('/auth/login')[0].body as string)).toEqual({ email: USER.email, password: 'secret' });
    expect(server.callsTo('/trpc/auth.me')[0].auth).toBe(`Bearer ${TOKEN}`);
    expect(server.callsTo('/workspaces')[0].auth).toBe(`Bearer ${TOKEN}`);
  });

  it('logs in again on the call after a 401 ended the session', async () => {
    const { server, api, onLogout } = client({ credentials: { email: USER.email, password: 'secret' } });
    server.reply('/auth/login', { status: 200, body: tokenBody(TOKEN) });
    server.reply('/workspaces', { status: 401, body: { message: 'Session revoked', code: 'UNAUTHORIZED' } }, { status: 200, body: [] });
    await expect(api.rest.request('GET', '/workspaces')).rejects.toBeInstanceOf(AuthenticationError);
    expect(onLogout).toHaveBeenCalledWith('unauthorized');
    await expect(api.rest.request('GET', '/workspaces')).resolves.toEqual([]);
    expect(server.callsTo('/auth/login')).toHaveLength(2);
  });

  it('throws the login failure as AuthenticationError', async () => {
    const { server, api } = client({ credentials: { email: USER.email, password: 'wrong' } });
    server.reply('/auth/login', { status: 401, body: { message: 'Invalid email or password', code: 'UNAUTHORIZED' } });
    await expect(api.trpc.auth.me.query()).rejects.toMatchObject({ name: 'AuthenticationError', message: 'Invalid email or password' });
    expect(server.callsTo('/trpc/auth.me')).toHaveLength(0);
  });
});

describe('retries', () => {
  it('retries a GET after a 503 with backoff, then returns the answer', async () => {
    const { server, api } = client({ apiKey: API_KEY });
    server.reply('/workspaces', { status: 503, body: { message: 'Unavailable', code: 'SERVICE_UNAVAILABLE' } }, { status: 200, body: [] });
    const result = api.rest.request('GET', '/workspaces');
    await vi.advanceTimersByTimeAsync(499);
    expect(server.callsTo('/workspaces')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toEqual([]);
    expect(server.callsTo('/workspaces').map((c) => c.at - T0)).toEqual([0, 500]);
  });

  it('waits as long as Retry-After says on a 429', async () => {
    const { server, api } = client({ apiKey: API_KEY });
    const limited: Reply = { status: 429, headers: { 'retry-after': '3' }, body: { message: 'Slow down', code: 'TOO_MANY_REQUESTS' } };
    server.reply('/trpc/auth.me', limited, { status: 200, body: ME });
    const result = api.trpc.auth.me.query();
    await vi.advanceTimersByTimeAsync(2_999);
    expect(server.callsTo('/trpc/auth.me')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toMatchObject({ email: USER.email });
  });

  it('gives up after maxRetries and throws the last answer as its error class', async () => {
    const { server, api } = client({ apiKey: API_KEY, maxRetries: 3 });
    server.reply('/workspaces', {
      status: 503,
      headers: { 'retry-after': '1' },
      body: { message: 'Failover', code: 'SERVICE_UNAVAILABLE' },
    });
    const result = api.rest.request('GET', '/workspaces').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10_000);
    const error = await result;
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 });
    expect(server.callsTo('/workspaces')).toHaveLength(4);
  });

  it('does not wait for a Retry-After above 60 s', async () => {
    const { server, api } = client({ apiKey: API_KEY });
    server.reply('/workspaces', {
      status: 429,
      headers: { 'retry-after': '120' },
      body: { message: 'Slow down', code: 'TOO_MANY_REQUESTS' },
    });
    const error = await api.rest.request('GET', '/workspaces').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 120 });
    expect(server.callsTo('/workspaces')).toHaveLength(1);
  });

  it('retries a POST with the same Idempotency-Key, on REST and on tRPC', async () => {
    const { server, api } = client({ apiKey: API_KEY });
    server.reply('/tags', 'network-error', { status: 200, body: { id: 1 } });
    server.reply(
      '/trpc/tags.create',
      { status: 503, body: { message: 'x', code: 'SERVICE_UNAVAILABLE' } },
      { status: 200, body: { result: { data: { id: 2 } } } },
    );
    const rest = api.rest.request('POST', '/tags', { body: { name: 'a' } });
    const trpc = api.trpc.tags.create.mutate({ workspaceId: 1, name: 'b' });
    await vi.advanceTimersByTimeAsync(500);
    await expect(rest).resolves.toEqual({ id: 1 });
    await expect(trpc).resolves.toEqual({ id: 2 });
    for (const path of ['/tags', '/trpc/tags.create']) {
      const keys = server.callsTo(path).map((c) => c.idempotencyKey);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
    }
  });

  it('never repeats a request without an Idempotency-Key that is not a GET', async () => {
    const { server, api } = client({ apiKey: API_KEY });
    server.reply('/tags/1', { status: 503, body: { message: 'x', code: 'SERVICE_UNAVAILABLE' } }, { status: 200, body: {} });
    await expect(api.rest.request('PATCH', '/tags/1', { body: { name: 'c' } })).rejects.toBeInstanceOf(ServerError);
    server.reply('/tags/2', 'network-error', { status: 200, body: {} });
    await expect(api.rest.request('DELETE', '/tags/2')).rejects.toBeInstanceOf(ConnectionError);
    expect(server.callsTo('/tags/1')).toHaveLength(1);
    expect(server.callsTo('/tags/2')).toHaveLength(1);
  });

  it('throws ConnectionError (cause: the network failure) when every attempt fails', async () => {
    const { server, api } = client({ apiKey: API_KEY, maxRetries: 2 });
    server.reply('/workspaces', 'network-error');
    const result = api.rest.request('GET', '/workspaces').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(500 + 1_000);
    const error = (await result) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, code: 'CONNECTION_ERROR' });
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(server.callsTo('/workspaces').map((c) => c.at - T0)).toEqual([0, 500, 1_500]);
  });

  it('ends an attempt after timeoutMs and retries it when safe', async () => {
    const { server, api } = client({ apiKey: API_KEY, timeoutMs: 2_000, maxRetries: 1 });
    server.reply('/trpc/auth.me', 'hang');
    const result = api.trpc.auth.me.query().catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(2_000 + 500 + 2_000);
    expect(await result).toMatchObject({ name: 'ConnectionError', code: 'TIMEOUT', status: 0 });
    expect(server.callsTo('/trpc/auth.me').map((c) => c.at - T0)).toEqual([0, 2_500]);
  });

  it("passes the caller's own abort through without retrying", async () => {
    const { server, api } = client({ apiKey: API_KEY });
    server.reply('/workspaces', 'hang');
    const controller = new AbortController();
    const result = api.rest.request('GET', '/workspaces', { signal: controller.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    const error = await result;
    expect(error).not.toBeInstanceOf(ApiError);
    expect((error as Error).name).toBe('AbortError');
    expect(server.callsTo('/workspaces')).toHaveLength(1);
  });

  it('sends the same multipart bytes on every attempt of an upload', async () => {
    const { server, api } = client({ apiKey: API_KEY });
    const path = '/entries/5/documents/upload';
    server.reply(path, 'network-error', { status: 200, body: { id: 'd1' } });
    const upload = api.files.uploadDocument({
      entryId: 5,
      workspaceId: 1,
      documentType: 'BASIS',
      file: new Uint8Array([37, 80, 68, 70]),
      fileName: 'a.pdf',
    });
    await vi.advanceTimersByTimeAsync(500);
    await expect(upload).resolves.toEqual({ id: 'd1' });
    const [first, second] = server.callsTo(path);
    expect(first.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(second.contentType).toBe(first.contentType);
    expect(Buffer.from(second.body as Uint8Array).equals(Buffer.from(first.body as Uint8Array))).toBe(true);
    expect(second.idempotencyKey).toBe(first.idempotencyKey);
  });

  it('backs off exponentially with jitter between half and all of the step, capped at 8 s', () => {
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffMs(n, () => 1))).toEqual([500, 1_000, 2_000, 4_000, 8_000, MAX_BACKOFF_MS]);
    expect([0, 1, 10].map((n) => backoffMs(n, () => 0))).toEqual([250, 500, 4_000]);
  });
});

describe('Idempotency-Key', () => {
  it('goes with every tRPC mutation (or the one given in context) and with no query', async () => {
    const { server, api } = client({ apiKey: API_KEY });
    server.reply('/trpc/tags.create', { status: 200, body: { result: { data: { id: 2 } } } });
    server.reply('/trpc/auth.me', { status: 200, body: ME });
    await api.trpc.tags.create.mutate({ workspaceId: 1, name: 'a' });
    await api.trpc.tags.create.mutate({ workspaceId: 1, name: 'a' });
    await api.trpc.tags.create.mutate({ workspaceId: 1, name: 'a' }, { context: { idempotencyKey: 'order-42' } });
    await api.trpc.auth.me.query();
    const [k1, k2, k3] = server.callsTo('/trpc/tags.create').map((c) => c.idempotencyKey);
    expect(k1).not.toBe(k2);
    expect(k3).toBe('order-42');
    expect(server.callsTo('/trpc/auth.me')[0].idempotencyKey).toBeNull();
  });

  it('goes with every REST POST (or the one given) and with no GET', async () => {
    const { server, api } = client({ apiKey: API_KEY });
    server.reply('/tags', { status: 200, body: {} });
    await api.rest.request('POST', '/tags', { body: {} });
    await api.rest.request('POST', '/tags', { body: {}, headers: { 'Idempotency-Key': 'mine' } });
    await api.rest.request('GET', '/tags');
    expect(server.callsTo('/tags').map((c) => c.idempotencyKey)).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), 'mine', null]);
  });
});

describe('one error hierarchy', () => {
  const cases = [
    [401, 'UNAUTHORIZED', AuthenticationError],
    [403, 'FORBIDDEN', PermissionError],
    [404, 'NOT_FOUND', NotFoundError],
    [409, 'CONFLICT', ConflictError],
  ] as const;

  it.each(cases)('%i is the same class with status, code, message and requestId on tRPC and REST', async (status, code, Class) => {
    const { server, api } = client({ apiKey: API_KEY, maxRetries: 0 });
    const headers = { 'x-request-id': `req-${status}` };
    server.reply('/trpc/auth.me', trpcError(status, code, 'Nope', headers));
    server.reply('/auth/me', { status, headers, body: { message: 'Nope', code } });
    const viaTrpc = await api.trpc.auth.me.query().catch((e: unknown) => e);
    const viaRest = await api.rest.request('GET', '/auth/me').catch((e: unknown) => e);
    for (const error of [viaTrpc, viaRest]) {
      expect(error).toBeInstanceOf(Class);
      expect(error).toMatchObject({ name: Class.name, status, code, message: 'Nope', requestId: `req-${status}` });
    }
  });
});

describe('webhook events', () => {
  it('are a union discriminated by type, each with its object type', () => {
    const handle = (event: WebhookEvent) => {
      if (event.type === 'entry.refunded') {
        expectTypeOf(event.data.originalEntryId).toEqualTypeOf<number>();
        expectTypeOf(event.data.object.amountCents).toEqualTypeOf<number>();
      } else if (event.type === 'document.uploaded') {
        expectTypeOf(event.data.object.sha256).toEqualTypeOf<string | null>();
      } else if (event.type === 'period.closed') {
        expectTypeOf(event.data.object).toHaveProperty('startDate');
      }
      expectTypeOf(event.type).toEqualTypeOf<WebhookEvent['type']>();
    };
    expectTypeOf(handle).parameter(0).toHaveProperty('data');
    expectTypeOf<WebhookEvent<'entry.refunded'>['type']>().toEqualTypeOf<'entry.refunded'>();
    // @ts-expect-error not an event type of CONTRACT §15
    expectTypeOf<WebhookEvent<'entry.deleted'>>();
  });
});
