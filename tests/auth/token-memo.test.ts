import { beforeAll, describe, expect, it } from 'vitest';
import { runtime, setRuntime } from '../../server/runtime.js';
import { buildUser, login } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';

/**
 * server/domains/auth/tokens.ts remembers token strings it has verified (signature, issuer,
 * audience, claims), so a client's next request only has its expiry checked (expiry itself is
 * pinned in auth.test.ts). What it remembers must never let through a token that would not
 * verify now.
 */
let api: Api;
beforeAll(async () => {
  api = await startServer();
});

describe('verified tokens remembered', () => {
  it('refuses a token differing from a remembered one in a single character of its signature', async () => {
    const token = await login(api, await buildUser());
    expect((await api.get('/auth/me', { token })).status).toBe(200);
    const last = token.at(-2) === 'A' ? 'B' : 'A';
    const forged = `${token.slice(0, -2)}${last}${token.at(-1)}`;
    expect(forged).not.toBe(token);
    expectErrorBody(await api.get('/auth/me', { token: forged }), 401, 'UNAUTHORIZED');
    expect((await api.get('/auth/me', { token })).status).toBe(200);
  });

  it('forgets every remembered token when the signing secret changes', async () => {
    const token = await login(api, await buildUser());
    expect((await api.get('/auth/me', { token })).status).toBe(200);
    const before = runtime();
    setRuntime({ ...before, secrets: { ...before.secrets, jwtSecret: `${before.secrets.jwtSecret}-rotated` } });
    try {
      expectErrorBody(await api.get('/auth/me', { token }), 401, 'UNAUTHORIZED');
    } finally {
      setRuntime(before);
    }
    expect((await api.get('/auth/me', { token })).status).toBe(200);
  });
});
