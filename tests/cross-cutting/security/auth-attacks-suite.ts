import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../../server/db/database.js';
import { WorkspaceMember } from '../../../server/db/models/index.js';
import { startServer, type Api } from '../../support/http.js';
import { buildUser, createKey, login } from '../../support/factories/index.js';
import { bearerProtected, committedOpenApi, deriveOperations, type Operation } from './operations.js';
import { buildProbeRequest, type ForeignIds } from './probe-requests.js';
import { errorShapeProblem, inPool, send, type Transport } from './probes.js';
import { buildTenants, type Tenants } from './tenants.js';
import { expiredWithinGrace, FORGERIES, genuine, sessionOf, type Identity } from './forged-tokens.js';

/**
 * Issue 10 — authentication attacks (shared by tests/cross-cutting/security/auth-attacks.test.ts, REST, and
 * the long budget of npm run test:hard, REST and tRPC), each against EVERY bearer-protected route (derived from the
 * router and the express routes, tests/cross-cutting/security/operations.ts) and against refresh: forged,
 * tampered, mis-addressed and expired tokens, revoked sessions, deactivated users, sessions past
 * their absolute lifetime. tests/auth/auth.test.ts checks most of these kinds on /auth/me and
 * /auth/refresh only; this is the sweep over every route. Each forged token belongs to a live
 * session of a user who may do everything in the workspace the requests name, so an accepted
 * forgery would succeed: only the token check stands between it and a 2xx.
 */

export type AuthAttackOptions = {
  transports: Transport[];
  /** 'issue': the attacks issue 10 names; 'all': every forgery and every way a session dies */
  attacks: 'issue' | 'all';
};

export function authAttacksSuite(opts: AuthAttackOptions): void {
  let api: Api;
  let tenants: Tenants;
  let routes: Operation[];
  let ids: ForeignIds;
  let target: Identity;
  let bystander: Identity;
  let requests = 0;
  let sweeps = 0;
  const forgeries = FORGERIES.filter((f) => opts.attacks === 'all' || f.issue);

  async function memberWithToken(): Promise<{ id: string; email: string; password: string; token: string }> {
    const user = await buildUser();
    await WorkspaceMember.create({ workspaceId: ids.workspaceId, userId: user.id });
    return { ...user, token: await login(api, user) };
  }

  beforeAll(async () => {
    api = await startServer();
    tenants = await buildTenants(api, { lackingCallers: false });
    ids = tenants.victim.ids;
    const operations = deriveOperations(committedOpenApi());
    // refresh is a public procedure doing its own bearer check: it is attacked like the others
    routes = operations.filter((o) => bearerProtected(o) || o.operationId === 'refreshToken');
    target = sessionOf((await memberWithToken()).token);
    bystander = sessionOf(tenants.victim.admin.token);
  }, 120_000);

  /** Every route with `token` → 401 with the contract's error body; returns the failures. */
  async function sweep(token: string, routesToHit: Operation[] = routes): Promise<string[]> {
    const failures: string[] = [];
    sweeps++;
    const jobs = routesToHit.flatMap((op) =>
      opts.transports.filter((t) => t === 'rest' || op.source === 'trpc').map((transport) => ({ op, transport })),
    );
    await inPool(jobs, 8, async ({ op, transport }) => {
      requests++;
      const res = await send(api, transport, op, buildProbeRequest(op, ids), { token });
      const problem = errorShapeProblem(transport, res);
      if (res.status !== 401 || problem)
        failures.push(`${transport} ${op.method} ${op.path}: ${res.status} ${problem ?? res.text.slice(0, 200)}`);
    });
    return failures;
  }

  describe('forged tokens on every protected route', () => {
    it('the crafting is right: the same token, unforged, is accepted', async () => {
      expect((await api.get('/auth/me', { token: genuine(target) })).status).toBe(200);
      expect((await api.get(`/entries/${ids.entryId}`, { token: genuine(target) })).status).toBe(200);
    });

    it.each(forgeries.map((f) => [f.name, f] as const))('%s → 401 everywhere', async (_name, forgery) => {
      expect(await sweep(forgery.token(target, bystander))).toEqual([]);
    });

    it('expired a second ago → 401 everywhere but refresh, which still renews it (grace)', async () => {
      const token = expiredWithinGrace(target);
      expect(
        await sweep(
          token,
          routes.filter((o) => o.operationId !== 'refreshToken'),
        ),
      ).toEqual([]);
      const refreshed = await api.post('/auth/refresh', undefined, { token });
      expect(refreshed.status).toBe(200);
      expect(sessionOf(refreshed.body.access_token)).toEqual(target);
    });

    it('the target session was never harmed by the sweeps: its genuine token still works', async () => {
      expect((await api.get('/auth/me', { token: genuine(target) })).status).toBe(200);
    });
  });

  /**
   * CONTRACT §20: /mcp takes a §19 API key only. Its callers: a live person's session token (the workspace admin's and
   * a member's: the hole found on 1ce96f1, where the admin's token listed 155 tools), every forgery, and — the control —
   * a live key of the same workspace, let in.
   */
  describe('the MCP endpoint: a session token is no agent', () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'attacker', version: '0' } },
    };
    const mcp = (token: string) =>
      api.post('/mcp', initialize, {
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}` },
      });

    it('a live session token (admin or member), and every forgery, → 401 with the contract body before any MCP message', async () => {
      const callers: [string, string][] = [
        ['admin session', tenants.victim.admin.token],
        ['member session', genuine(target)],
        ...forgeries.map((f) => [f.name, f.token(target, bystander)] as [string, string]),
      ];
      const failures: string[] = [];
      for (const [name, token] of callers) {
        const res = await mcp(token);
        if (res.status !== 401 || errorShapeProblem('rest', res) || res.body?.jsonrpc !== undefined)
          failures.push(`${name}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      expect(failures).toEqual([]);
    });

    it('a live API key of the same workspace is let in (the control)', async () => {
      const key = await createKey(api, tenants.victim.admin.token, { workspaceId: ids.workspaceId, permissions: ['workspace.read'] });
      const res = await mcp(key.apiKey);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: expect.any(Object) } });
    });
  });

  describe('dead sessions on every protected route (genuine tokens)', () => {
    it('a session revoked by logout → 401 everywhere', async () => {
      const user = await memberWithToken();
      expect((await api.post('/auth/logout', undefined, { token: user.token })).status).toBe(200);
      expect(await sweep(user.token)).toEqual([]);
    });

    it('a deactivated user → 401 everywhere', async () => {
      const user = await memberWithToken();
      expect((await api.del(`/users/${user.id}`, { token: tenants.victim.admin.token })).status).toBe(200);
      expect(await sweep(user.token)).toEqual([]);
    });

    // the long variant only: two more ways a session dies
    const full = opts.attacks === 'all' ? [it] : [];
    for (const fullOnly of full) {
      fullOnly('a user deactivated behind the API (is_active false, sessions untouched) → 401 everywhere', async () => {
        const user = await memberWithToken();
        await db().query('UPDATE users SET is_active = false WHERE id = :id', { replacements: { id: user.id }, type: QueryTypes.UPDATE });
        expect(await sweep(user.token)).toEqual([]);
      });

      fullOnly('a session past its absolute lifetime → 401 everywhere, though the token itself is not expired', async () => {
        const user = await memberWithToken();
        await db().query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = :sid`, {
          replacements: { sid: sessionOf(user.token).sid },
          type: QueryTypes.UPDATE,
        });
        expect(await sweep(user.token)).toEqual([]);
      });
    }

    it(`reports the number of requests`, () => {
      console.info(`auth attacks (${opts.transports.join(', ')}): ${requests} requests, ${sweeps} attacks × ${routes.length} routes`);
      expect(sweeps).toBe(forgeries.length + 1 + 2 + full.length * 2);
      expect(requests).toBeGreaterThanOrEqual(sweeps * (routes.length - 1));
    });
  });
}
