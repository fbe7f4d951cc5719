import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, createClient, toApiError, type LogoutReason } from '../../client-sdk/src/index.js';
import { BASE_URL, USER, fakeServer, makeJwt, tokenBody } from './fake-server.js';

const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);
const TOKEN = makeJwt(T0 / 1000 + 900);

/** The tRPC error envelope the service sends, with its data.code/httpStatus/issues. */
function trpcError(path: string, httpStatus: number, code: string, message: string, issues?: unknown[]) {
  return { status: httpStatus, body: { error: { message, code: -32001, data: { code, httpStatus, issues, path } } } };
}

async function loggedIn(baseUrl = BASE_URL) {
  const server = fakeServer();
  const onLogout = vi.fn<(reason: LogoutReason) => void>();
  const client = createClient({ baseUrl, fetch: server.fetch, onLogout });
  server.reply('/api/auth/login', { status: 200, body: tokenBody(TOKEN) });
  server.reply('/auth/login', { status: 200, body: tokenBody(TOKEN) });
  await client.session.login(USER.email, 'secret');
  return { server, onLogout, client };
}

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('trpc', () => {
  it('sends the bearer token to {baseUrl}/trpc', async () => {
    const { server, client } = await loggedIn();
    server.reply('/trpc/auth.me', { status: 200, body: { result: { data: { ...USER, isActive: true, memberships: [] } } } });
    const me = await client.trpc.auth.me.query();
    expect(me.email).toBe(USER.email);
    expect(server.callsTo('/trpc/auth.me')[0].auth).toBe(`Bearer ${TOKEN}`);
  });

  it('logs out on a 401 from a non-session procedure', async () => {
    const { server, client, onLogout } = await loggedIn();
    server.reply('/trpc/auth.me', trpcError('auth.me', 401, 'UNAUTHORIZED', 'Authentication required'));
    const error = await client.trpc.auth.me.query().catch((e: unknown) => e);
    expect(onLogout).toHaveBeenCalledExactlyOnceWith('unauthorized');
    expect(client.session.getToken()).toBeNull();
    expect(toApiError(error)).toMatchObject({ status: 401, code: 'UNAUTHORIZED', message: 'Authentication required' });
  });

  it('does not log out on a 401 from the login procedure', async () => {
    const { server, client, onLogout } = await loggedIn();
    server.reply('/trpc/auth.login', trpcError('auth.login', 401, 'UNAUTHORIZED', 'Invalid email or password'));
    await expect(client.trpc.auth.login.mutate({ email: USER.email, password: 'wrong' })).rejects.toThrow('Invalid email or password');
    expect(onLogout).not.toHaveBeenCalled();
    expect(client.session.getToken()).toBe(TOKEN);
  });
});

describe('rest', () => {
  it('sends JSON with the bearer token and a query string, and parses the answer', async () => {
    const { server, client } = await loggedIn();
    server.reply('/workspaces/7/tags', { status: 201, body: { id: 1, name: 'food' } });
    const created = await client.rest.request<{ id: number }>('post', '/workspaces/7/tags', {
      body: { name: 'food' },
      query: { dryRun: false, ids: [1, 2], skip: undefined },
    });
    expect(created).toEqual({ id: 1, name: 'food' });
    const call = server.calls.at(-1)!;
    expect(call).toMatchObject({ method: 'POST', auth: `Bearer ${TOKEN}`, contentType: 'application/json', body: '{"name":"food"}' });
    expect(server.fetch.mock.calls.at(-1)![0]).toBe(`${BASE_URL}/workspaces/7/tags?dryRun=false&ids=1&ids=2`);
  });

  it('resolves undefined for 204', async () => {
    const { server, client } = await loggedIn();
    server.reply('/tags/1', { status: 204 });
    await expect(client.rest.request('DELETE', '/tags/1')).resolves.toBeUndefined();
  });

  it('treats session endpoints under a base path as auth calls', async () => {
    const { server, client, onLogout } = await loggedIn(`${BASE_URL}/api/`);
    server.reply('/api/auth/logout', { status: 401, body: { message: 'Authentication required', code: 'UNAUTHORIZED' } });
    await expect(client.rest.request('POST', '/auth/logout', { body: {} })).rejects.toBeInstanceOf(ApiError);
    expect(onLogout).not.toHaveBeenCalled();

    server.reply('/api/auth/me', { status: 401, body: { message: 'Authentication required', code: 'UNAUTHORIZED' } });
    await expect(client.rest.request('GET', '/auth/me')).rejects.toMatchObject({ status: 401 });
    expect(onLogout).toHaveBeenCalledExactlyOnceWith('unauthorized');
  });
});

describe('toApiError', () => {
  it('reads a tRPC validation error with its issues', async () => {
    const { server, client } = await loggedIn();
    const issues = [{ path: ['email'], message: 'Too small' }];
    server.reply('/trpc/auth.login', trpcError('auth.login', 400, 'BAD_REQUEST', 'Input validation failed', issues));
    const error = await client.trpc.auth.login.mutate({ email: '', password: 'x' }).catch((e: unknown) => e);
    expect(toApiError(error)).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: 'Input validation failed', issues });
  });

  it('returns undefined for errors that are not from the service', () => {
    expect(toApiError(new Error('boom'))).toBeUndefined();
    expect(toApiError('nope')).toBeUndefined();
  });
});
