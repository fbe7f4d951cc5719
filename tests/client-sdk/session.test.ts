import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, createClient, SessionManager, ValidationError, type LogoutReason, type Timers } from '../../client-sdk/src/index.js';
import { BASE_URL, USER, fakeServer, makeJwt, tokenBody } from './fake-server.js';

const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);
const SECOND = 1000;
const EXP1 = T0 / SECOND + 900;
const TOKEN1 = makeJwt(EXP1);
const TOKEN2 = makeJwt(EXP1 + 900);
const TOKEN3 = makeJwt(EXP1 + 1800);

function setup() {
  const server = fakeServer();
  const onLogout = vi.fn<(reason: LogoutReason) => void>();
  const onTokenChange = vi.fn<(token: string | null) => void>();
  const client = createClient({ baseUrl: BASE_URL, fetch: server.fetch, onLogout, session: { onTokenChange } });
  return { server, onLogout, onTokenChange, client, session: client.session };
}

async function loggedIn() {
  const ctx = setup();
  ctx.server.reply('/auth/login', { status: 200, body: tokenBody(TOKEN1) });
  await ctx.session.login(USER.email, 'secret');
  return ctx;
}

/** Milliseconds from now until the given epoch-ms instant. */
const until = (instant: number) => instant - Date.now();

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('login', () => {
  it('posts the credentials as JSON and stores the token and user', async () => {
    const { server, session, onTokenChange } = await loggedIn();
    const [call] = server.callsTo('/auth/login');
    expect(call.method).toBe('POST');
    expect(call.contentType).toBe('application/json');
    expect(JSON.parse(call.body as string)).toEqual({ email: USER.email, password: 'secret' });
    expect(session.getToken()).toBe(TOKEN1);
    expect(session.getUser()).toEqual(USER);
    expect(session.getExpiresAt()).toBe(EXP1 * SECOND);
    expect(onTokenChange).toHaveBeenCalledWith(TOKEN1);
  });

  it('throws ApiError on a 401 from /auth/login without calling onLogout', async () => {
    const { server, session, onLogout } = setup();
    server.reply('/auth/login', { status: 401, body: { message: 'Invalid email or password', code: 'UNAUTHORIZED' } });
    const error = await session.login(USER.email, 'wrong').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED', message: 'Invalid email or password' });
    expect(onLogout).not.toHaveBeenCalled();
    expect(session.getToken()).toBeNull();
  });

  it('keeps the current session when a second login is refused', async () => {
    const { server, session, onLogout } = await loggedIn();
    server.reply('/auth/login', { status: 401, body: { message: 'Invalid email or password', code: 'UNAUTHORIZED' } });
    await expect(session.login(USER.email, 'wrong')).rejects.toBeInstanceOf(ApiError);
    expect(session.getToken()).toBe(TOKEN1);
    expect(onLogout).not.toHaveBeenCalled();
  });
});

describe('scheduled refresh', () => {
  it('refreshes exactly 60 s before exp, not a millisecond earlier', async () => {
    const { server, session } = await loggedIn();
    server.reply('/auth/refresh', { status: 200, body: tokenBody(TOKEN2) });
    const refreshAt = (EXP1 - 60) * SECOND;

    await vi.advanceTimersByTimeAsync(until(refreshAt) - 1);
    expect(server.callsTo('/auth/refresh')).toHaveLength(0);

    await vi.advanceTimersByTimeAsync(1);
    const calls = server.callsTo('/auth/refresh');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      method: 'POST',
      at: refreshAt,
      auth: `Bearer ${TOKEN1}`,
      contentType: 'application/json',
      body: '{}',
    });
    expect(session.getToken()).toBe(TOKEN2);
  });

  it('schedules the next refresh from the new token', async () => {
    const { server, session } = await loggedIn();
    server.reply('/auth/refresh', { status: 200, body: tokenBody(TOKEN2) }, { status: 200, body: tokenBody(TOKEN3) });
    await vi.advanceTimersByTimeAsync(until((EXP1 + 900 - 60) * SECOND) - 1);
    expect(server.callsTo('/auth/refresh')).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(1);
    expect(server.callsTo('/auth/refresh')[1]).toMatchObject({ auth: `Bearer ${TOKEN2}`, at: (EXP1 + 900 - 60) * SECOND });
    expect(session.getToken()).toBe(TOKEN3);
  });

  it('prefers the JWT exp claim over expires_in', async () => {
    const { server, session } = setup();
    const shortExp = T0 / SECOND + 300;
    server.reply('/auth/login', { status: 200, body: tokenBody(makeJwt(shortExp), 900) });
    server.reply('/auth/refresh', { status: 200, body: tokenBody(TOKEN2) });
    await session.login(USER.email, 'secret');

    await vi.advanceTimersByTimeAsync(until((shortExp - 60) * SECOND));
    expect(server.callsTo('/auth/refresh')).toHaveLength(1);
  });

  it('falls back to expires_in when the token has no readable exp', async () => {
    const { server, session } = setup();
    server.reply('/auth/login', { status: 200, body: tokenBody('opaque-token', 600) });
    server.reply('/auth/refresh', { status: 200, body: tokenBody(TOKEN2) });
    await session.login(USER.email, 'secret');
    expect(session.getExpiresAt()).toBe(T0 + 600 * SECOND);

    await vi.advanceTimersByTimeAsync(540 * SECOND - 1);
    expect(server.callsTo('/auth/refresh')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.callsTo('/auth/refresh')).toHaveLength(1);
  });

  it('uses injected timers and clock', async () => {
    const server = fakeServer();
    server.reply('/auth/login', { status: 200, body: tokenBody(TOKEN1) });
    const scheduled: number[] = [];
    const timers: Timers = {
      setTimeout: (_callback, ms) => scheduled.push(ms),
      clearTimeout: () => undefined,
      now: () => T0 + 100 * SECOND,
    };
    const session = new SessionManager({ baseUrl: BASE_URL, fetch: server.fetch, timers });
    await session.login(USER.email, 'secret');
    expect(scheduled).toEqual([(900 - 60 - 100) * SECOND]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('refresh failures', () => {
  it('retries exactly 30 s after a 5xx', async () => {
    const { server, session, onLogout } = await loggedIn();
    server.reply(
      '/auth/refresh',
      { status: 503, body: { message: 'Unavailable', code: 'INTERNAL_SERVER_ERROR' } },
      { status: 200, body: tokenBody(TOKEN2) },
    );
    const refreshAt = (EXP1 - 60) * SECOND;
    await vi.advanceTimersByTimeAsync(until(refreshAt));
    expect(server.callsTo('/auth/refresh')).toHaveLength(1);
    expect(session.getToken()).toBe(TOKEN1);

    await vi.advanceTimersByTimeAsync(30 * SECOND - 1);
    expect(server.callsTo('/auth/refresh')).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(1);
    expect(server.callsTo('/auth/refresh').map((c) => c.at)).toEqual([refreshAt, refreshAt + 30 * SECOND]);
    expect(session.getToken()).toBe(TOKEN2);
    expect(onLogout).not.toHaveBeenCalled();
  });

  it('retries exactly 30 s after a network error', async () => {
    const { server, session, onLogout } = await loggedIn();
    server.reply('/auth/refresh', 'network-error', { status: 200, body: tokenBody(TOKEN2) });
    const refreshAt = (EXP1 - 60) * SECOND;
    await vi.advanceTimersByTimeAsync(until(refreshAt) + 30 * SECOND - 1);
    expect(server.callsTo('/auth/refresh')).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(1);
    expect(server.callsTo('/auth/refresh').map((c) => c.at)).toEqual([refreshAt, refreshAt + 30 * SECOND]);
    expect(session.getToken()).toBe(TOKEN2);
    expect(onLogout).not.toHaveBeenCalled();
  });

  it('keeps retrying every 30 s until the token is more than 7 minutes past expiry, then logs out', async () => {
    const { server, session, onLogout } = await loggedIn();
    server.reply('/auth/refresh', { status: 502, body: { message: 'Bad gateway', code: 'INTERNAL_SERVER_ERROR' } });
    const expiry = EXP1 * SECOND;

    await vi.advanceTimersByTimeAsync(until(expiry + 7 * 60 * SECOND));
    const attempts = server.callsTo('/auth/refresh').map((c) => c.at);
    expect(attempts).toHaveLength(17);
    expect(attempts[0]).toBe(expiry - 60 * SECOND);
    expect(attempts.at(-1)).toBe(expiry + 7 * 60 * SECOND);
    expect(onLogout).not.toHaveBeenCalled();
    expect(session.getToken()).toBe(TOKEN1);

    await vi.advanceTimersByTimeAsync(30 * SECOND);
    expect(server.callsTo('/auth/refresh')).toHaveLength(17);
    expect(onLogout).toHaveBeenCalledExactlyOnceWith('expired');
    expect(session.getToken()).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('logs out on a 401 from refresh', async () => {
    const { server, session, onLogout, onTokenChange } = await loggedIn();
    server.reply('/auth/refresh', { status: 401, body: { message: 'Invalid or expired token', code: 'UNAUTHORIZED' } });
    await vi.advanceTimersByTimeAsync(until((EXP1 - 60) * SECOND));
    expect(onLogout).toHaveBeenCalledExactlyOnceWith('refresh_rejected');
    expect(session.getToken()).toBeNull();
    expect(onTokenChange).toHaveBeenLastCalledWith(null);
    expect(vi.getTimerCount()).toBe(0);

    await vi.advanceTimersByTimeAsync(60 * 60 * SECOND);
    expect(server.callsTo('/auth/refresh')).toHaveLength(1);
  });
});

describe('401 from API calls', () => {
  it('logs out on a 401 from a non-auth call through rest.request and throws ApiError', async () => {
    const { server, session, onLogout, client } = await loggedIn();
    server.reply('/workspaces', { status: 401, body: { message: 'Authentication required', code: 'UNAUTHORIZED' } });
    const error = await client.rest.request('GET', '/workspaces').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(server.callsTo('/workspaces')[0].auth).toBe(`Bearer ${TOKEN1}`);
    expect(onLogout).toHaveBeenCalledExactlyOnceWith('unauthorized');
    expect(session.getToken()).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not log out on other error statuses', async () => {
    const { server, session, onLogout, client } = await loggedIn();
    server.reply('/workspaces', { status: 403, body: { message: 'Permission denied', code: 'FORBIDDEN' } });
    await expect(client.rest.request('GET', '/workspaces')).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(onLogout).not.toHaveBeenCalled();
    expect(session.getToken()).toBe(TOKEN1);
  });

  it('ignores a 401 for a token that has since been refreshed', async () => {
    const { server, session, onLogout, client } = await loggedIn();
    server.reply('/auth/refresh', { status: 200, body: tokenBody(TOKEN2) });
    let answer: ((res: Response) => void) | undefined;
    const scripted = server.fetch.getMockImplementation()!;
    server.fetch.mockImplementation((input, init) =>
      String(input).endsWith('/workspaces') && !answer ? new Promise<Response>((resolve) => (answer = resolve)) : scripted(input, init),
    );

    const pending = client.rest.request('GET', '/workspaces').catch((e: unknown) => e);
    await vi.waitFor(() => expect(answer).toBeDefined());
    await session.refresh();
    expect(session.getToken()).toBe(TOKEN2);
    answer!(new Response(JSON.stringify({ message: 'Invalid or expired token', code: 'UNAUTHORIZED' }), { status: 401 }));

    expect(await pending).toMatchObject({ status: 401 });
    expect(onLogout).not.toHaveBeenCalled();
    expect(session.getToken()).toBe(TOKEN2);
  });
});

describe('checkValidity', () => {
  it('returns false without a session and makes no request', async () => {
    const { server, session } = setup();
    await expect(session.checkValidity()).resolves.toBe(false);
    expect(server.calls).toHaveLength(0);
  });

  it('returns true without a request while the token has more than 60 s left', async () => {
    const { server, session } = await loggedIn();
    vi.setSystemTime((EXP1 - 61) * SECOND);
    await expect(session.checkValidity()).resolves.toBe(true);
    expect(server.callsTo('/auth/refresh')).toHaveLength(0);
  });

  it('refreshes at once when within 60 s of expiry', async () => {
    const { server, session } = await loggedIn();
    server.reply('/auth/refresh', { status: 200, body: tokenBody(TOKEN2) });
    vi.setSystemTime((EXP1 - 30) * SECOND);
    await expect(session.checkValidity()).resolves.toBe(true);
    expect(server.callsTo('/auth/refresh')).toHaveLength(1);
    expect(session.getToken()).toBe(TOKEN2);
  });

  it('refreshes an expired token still inside the grace period', async () => {
    const { server, session } = await loggedIn();
    server.reply('/auth/refresh', { status: 200, body: tokenBody(TOKEN2) });
    vi.setSystemTime((EXP1 + 5 * 60) * SECOND);
    await expect(session.checkValidity()).resolves.toBe(true);
    expect(session.getToken()).toBe(TOKEN2);
  });

  it('returns false and logs out when the refresh is refused', async () => {
    const { server, session, onLogout } = await loggedIn();
    server.reply('/auth/refresh', { status: 401, body: { message: 'Invalid or expired token', code: 'UNAUTHORIZED' } });
    vi.setSystemTime((EXP1 + 60) * SECOND);
    await expect(session.checkValidity()).resolves.toBe(false);
    expect(onLogout).toHaveBeenCalledExactlyOnceWith('refresh_rejected');
  });

  it('logs out without a request once the token is more than 7 minutes past expiry', async () => {
    const { server, session, onLogout } = await loggedIn();
    vi.setSystemTime((EXP1 + 7 * 60) * SECOND + 1);
    await expect(session.checkValidity()).resolves.toBe(false);
    expect(server.callsTo('/auth/refresh')).toHaveLength(0);
    expect(onLogout).toHaveBeenCalledExactlyOnceWith('expired');
  });

  it('joins a refresh already under way', async () => {
    const { server, session } = await loggedIn();
    server.reply('/auth/refresh', { status: 200, body: tokenBody(TOKEN2) });
    vi.setSystemTime((EXP1 - 10) * SECOND);
    const results = await Promise.all([session.checkValidity(), session.checkValidity()]);
    expect(results).toEqual([true, true]);
    expect(server.callsTo('/auth/refresh')).toHaveLength(1);
  });
});

describe('logout', () => {
  it('revokes the session on the server and clears local state', async () => {
    const { server, session, onLogout } = await loggedIn();
    server.reply('/auth/logout', { status: 200, body: { success: true } });
    await session.logout();
    expect(server.callsTo('/auth/logout')[0]).toMatchObject({ method: 'POST', auth: `Bearer ${TOKEN1}` });
    expect(session.getToken()).toBeNull();
    expect(onLogout).toHaveBeenCalledExactlyOnceWith('user');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ignores a network failure', async () => {
    const { server, session } = await loggedIn();
    server.reply('/auth/logout', 'network-error');
    await expect(session.logout()).resolves.toBeUndefined();
    expect(session.getToken()).toBeNull();
  });

  it('drops a refresh answer that arrives after logout', async () => {
    const { server, session } = await loggedIn();
    server.reply('/auth/logout', { status: 200, body: { success: true } });
    let answer!: (res: Response) => void;
    server.fetch.mockImplementationOnce(() => new Promise<Response>((resolve) => (answer = resolve)));
    const refreshing = session.refresh();
    await session.logout();
    answer(new Response(JSON.stringify(tokenBody(TOKEN2)), { status: 200 }));
    await refreshing;
    expect(session.getToken()).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('restore', () => {
  it('adopts a kept token and schedules its refresh', async () => {
    const { server, session } = setup();
    server.reply('/auth/refresh', { status: 200, body: tokenBody(TOKEN2) });
    expect(session.restore(TOKEN1)).toBe(true);
    expect(session.getToken()).toBe(TOKEN1);
    await vi.advanceTimersByTimeAsync(until((EXP1 - 60) * SECOND));
    expect(session.getToken()).toBe(TOKEN2);
  });

  it('refuses a token past the grace period or without exp', () => {
    const { session } = setup();
    expect(session.restore(makeJwt(T0 / SECOND - 7 * 60 - 1))).toBe(false);
    expect(session.restore('not-a-jwt')).toBe(false);
    expect(session.getToken()).toBeNull();
  });
});

describe('ApiError', () => {
  it('carries status, code, message and issues from the error body', async () => {
    const { server, client } = await loggedIn();
    const issues = [{ path: ['name'], message: 'Required' }];
    server.reply('/workspaces', { status: 400, body: { message: 'Input validation failed', code: 'BAD_REQUEST', issues } });
    const error = (await client.rest.request('POST', '/workspaces', { body: {} }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ValidationError');
    expect(error.status).toBe(400);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toBe('Input validation failed');
    expect(error.issues).toEqual(issues);
  });

  it('falls back to the status when the body is not the service shape', async () => {
    const { server, client } = await loggedIn();
    server.reply('/workspaces', { status: 502, raw: '<html>bad gateway</html>' });
    const error = (await client.rest.request('GET', '/workspaces').catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ status: 502, code: 'INTERNAL_SERVER_ERROR' });
    expect(error.issues).toBeUndefined();
  });
});
