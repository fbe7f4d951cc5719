import jwt from 'jsonwebtoken';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../server/lib/clock.js';
import { runtime } from '../../server/runtime.js';
import { User } from '../../server/db/models/index.js';
import { buildUser, buildWorkspace, login, PASSWORD } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});
afterEach(() => clock.reset());

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (secondsAfterT0: number) => () => new Date(T0.getTime() + secondsAfterT0 * 1000);

function sign(payload: object, opts: jwt.SignOptions = {}, secret = runtime().secrets.jwtSecret) {
  const { JWT_ISSUER, JWT_AUDIENCE } = runtime().config;
  return jwt.sign(payload, secret, { algorithm: 'HS256', issuer: JWT_ISSUER, audience: JWT_AUDIENCE, ...opts });
}

describe('POST /auth/login', () => {
  it('returns a 15-minute HS256 bearer token and the user with permissions', async () => {
    const user = await buildUser({ permissions: ['entry.create', 'entry.edit'] });
    const res = await api.post('/auth/login', { email: user.email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 900,
      user: { id: user.id, email: user.email, name: 'Test User', permissions: ['entry.create', 'entry.edit'] },
    });
    const decoded = jwt.decode(res.body.access_token, { complete: true }) as jwt.Jwt;
    const payload = decoded.payload as jwt.JwtPayload;
    expect(decoded.header.alg).toBe('HS256');
    expect(payload.sub).toBe(user.id);
    expect(payload.exp! - payload.iat!).toBe(900);
    expect(payload.iss).toBe(runtime().config.JWT_ISSUER);
    expect(payload.aud).toBe(runtime().config.JWT_AUDIENCE);
    expect(typeof payload.sid).toBe('string');
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    const user = await buildUser();
    const wrong = await api.post('/auth/login', { email: user.email, password: 'not-the-password' });
    const unknown = await api.post('/auth/login', { email: 'nobody@example.test', password: 'not-the-password' });
    expectErrorBody(wrong, 401, 'UNAUTHORIZED');
    expectErrorBody(unknown, 401, 'UNAUTHORIZED');
    expect(wrong.body.message).toBe(unknown.body.message);
  });

  it('refuses a deactivated user', async () => {
    const user = await buildUser();
    await User.update({ isActive: false }, { where: { id: user.id } });
    expectErrorBody(await api.post('/auth/login', { email: user.email, password: PASSWORD }), 401, 'UNAUTHORIZED');
  });

  it('rate-limits an email after 10 failures in 15 minutes, even with the right password, until the window passes', async () => {
    const user = await buildUser();
    clock.set(at(0));
    for (let i = 0; i < 10; i++) {
      clock.set(at(i * 10));
      expect((await api.post('/auth/login', { email: user.email, password: 'wrong-password' })).status).toBe(401);
    }
    clock.set(at(100));
    const limited = await api.post('/auth/login', { email: user.email, password: PASSWORD });
    expectErrorBody(limited, 429, 'TOO_MANY_REQUESTS');
    // the oldest failure (t=0) leaves the window at t=900
    expect(limited.headers.get('retry-after')).toBe('800');
    // another email is not affected
    const other = await buildUser();
    expect((await api.post('/auth/login', { email: other.email, password: PASSWORD })).status).toBe(200);
    clock.set(at(899));
    expect((await api.post('/auth/login', { email: user.email, password: PASSWORD })).status).toBe(429);
    clock.set(at(901));
    expect((await api.post('/auth/login', { email: user.email, password: PASSWORD })).status).toBe(200);
  });

  it('checks at most 10 passwords per email under concurrency: 40 parallel wrong passwords get ten 401s and thirty 429s', async () => {
    const user = await buildUser();
    const results = await Promise.all(
      Array.from({ length: 40 }, () => api.post('/auth/login', { email: user.email, password: 'wrong-password' })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    for (const r of results.filter((x) => x.status === 429)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api.post('/auth/login', { email: user.email, password: PASSWORD })).status).toBe(429);
  });

  it('rejects a body with unknown fields', async () => {
    const res = await api.post('/auth/login', { email: 'a@b.c', password: 'x', admin: true });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues.length).toBeGreaterThan(0);
  });
});

describe('token lifetime and refresh', () => {
  it('a token works until exactly 15 minutes; refresh accepts it up to 7 minutes after expiry and not a second later', async () => {
    const user = await buildUser();
    clock.set(at(0));
    const token = await login(api, user);
    clock.set(at(899));
    expect((await api.get('/auth/me', { token })).status).toBe(200);
    clock.set(at(900));
    expectErrorBody(await api.get('/auth/me', { token }), 401, 'UNAUTHORIZED');

    clock.set(at(900 + 420));
    const refreshed = await api.post('/auth/refresh', undefined, { token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.expires_in).toBe(900);
    const fresh = refreshed.body.access_token;
    expect((await api.get('/auth/me', { token: fresh })).status).toBe(200);

    clock.set(at(900 + 421));
    expectErrorBody(await api.post('/auth/refresh', undefined, { token }), 401, 'UNAUTHORIZED');
  });

  it('refresh keeps the session: logging out revokes the refreshed token too', async () => {
    const user = await buildUser();
    const token = await login(api, user);
    const fresh = (await api.post('/auth/refresh', undefined, { token })).body.access_token;
    expect((await api.post('/auth/logout', undefined, { token: fresh })).status).toBe(200);
    for (const t of [token, fresh]) {
      expectErrorBody(await api.get('/auth/me', { token: t }), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/auth/refresh', undefined, { token: t }), 401, 'UNAUTHORIZED');
    }
  });

  it('a session ends 12 hours after login: refresh is refused after that', async () => {
    const user = await buildUser();
    clock.set(at(0));
    let token = await login(api, user);
    for (let t = 800; t < 12 * 3600; t += 800) {
      clock.set(at(t));
      const res = await api.post('/auth/refresh', undefined, { token });
      expect(res.status).toBe(200);
      token = res.body.access_token;
    }
    clock.set(at(12 * 3600 + 1));
    expectErrorBody(await api.post('/auth/refresh', undefined, { token }), 401, 'UNAUTHORIZED');
  });

  it('a deactivated user is refused at once, on calls and on refresh', async () => {
    const user = await buildUser();
    const token = await login(api, user);
    await User.update({ isActive: false }, { where: { id: user.id } });
    await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
    expectErrorBody(await api.get('/auth/me', { token }), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.post('/auth/refresh', undefined, { token }), 401, 'UNAUTHORIZED');
  });
});

describe('forged and malformed tokens', () => {
  it('refuses every kind of bad token with 401', async () => {
    const user = await buildUser();
    const good = await login(api, user);
    const claims = jwt.decode(good) as jwt.JwtPayload;
    const now = Math.floor(Date.now() / 1000);
    const base = { sub: user.id, sid: claims.sid, iat: now };
    const [h, p] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: '00000000-0000-4000-8000-000000000000' })).toString('base64url')}.${good.split('.')[2]}`;
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
    const bad = [
      none,
      tampered,
      sign({ ...base, exp: now + 600 }, {}, 'another-secret-another-secret-another-secret'),
      sign(base, {}), // no exp
      sign({ ...base, exp: now + 600 }, { issuer: 'someone-else' }),
      sign({ ...base, exp: now + 600 }, { audience: 'another-api' }),
      jwt.sign({ ...base, exp: now + 600 }, runtime().secrets.jwtSecret, { algorithm: 'HS512' }),
      sign({ sub: user.id, iat: now, exp: now + 600 }), // no session id
      'not-a-jwt',
    ];
    for (const token of bad) {
      expectErrorBody(await api.get('/auth/me', { token }), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/auth/refresh', undefined, { token }), 401, 'UNAUTHORIZED');
    }
    expectErrorBody(await api.get('/auth/me'), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.get('/auth/me', { headers: { Authorization: `Basic ${good}` } }), 401, 'UNAUTHORIZED');
    // the genuine token still works
    expect((await api.get('/auth/me', { token: good })).status).toBe(200);
  });
});

describe('GET /auth/me', () => {
  it('reads permissions and memberships live on each request', async () => {
    const user = await buildUser({ permissions: ['entry.create'] });
    const token = await login(api, user);
    expect((await api.get('/auth/me', { token })).body).toMatchObject({ permissions: ['entry.create'], memberships: [] });
    await User.update({ permissions: ['entry.create', 'entry.void'] }, { where: { id: user.id } });
    await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
    const ws = await buildWorkspace({ members: [user.id] });
    const me = await api.get('/auth/me', { token });
    expect(me.body.permissions).toEqual(['entry.create', 'entry.void']);
    expect(me.body.memberships).toEqual([{ workspaceId: ws.id, role: 'WORKSPACE', projectIds: [] }]);
    expect(me.text).not.toContain('passwordHash');
    expect(me.text).not.toContain('$argon2');
  });
});
