import { describe, expect, it } from 'vitest';
import { User, WorkspaceMember } from '../../../server/db/models/index.js';
import { sessionCache } from '../../../server/domains/auth/authenticate.js';
import { buildUser, login } from '../../support/factories/index.js';
import { expectErrorBody, type Api, type ApiResponse } from '../../support/http.js';
import { errorShapeProblem, type Transport } from './probes.js';
import type { Tenants } from './tenants.js';

/**
 * Issue 29 (CONTRACT §4): a user who belongs to the attacked workspace AND to the attacker's is
 * visible to the attacker (every permission, member of its own workspace only), but is never
 * changed through it: the Mallory/victim sequence answers 403 at the PATCH, over every transport,
 * and the attacker cannot then log in as the user.
 */
export function takeoverCases(ctx: () => { api: Api; tenants: Tenants }, transports: Transport[]): void {
  const TAKEOVER_PASSWORD = 'mallorywins123';

  function update(api: Api, transport: Transport, token: string, id: string, body: Record<string, unknown>): Promise<ApiResponse> {
    if (transport === 'rest') return api.patch(`/users/${id}`, body, { token });
    return api.post('/trpc/users.update', { id, ...body }, { token });
  }
  function deactivate(api: Api, transport: Transport, token: string, id: string): Promise<ApiResponse> {
    if (transport === 'rest') return api.del(`/users/${id}`, { token });
    return api.post('/trpc/users.deactivate', { id }, { token });
  }

  describe(`a user shared with the attacker's workspace is not taken over (${transports.join(', ')})`, () => {
    it('password, permissions, name, active flag and DELETE → 403; nothing changes; no login with the new password', async () => {
      const { api, tenants } = ctx();
      const shared = await buildUser({ permissions: ['entry.create', 'entry.edit'] });
      await WorkspaceMember.create({ workspaceId: tenants.victim.ids.workspaceId, userId: shared.id });
      await WorkspaceMember.create({ workspaceId: tenants.attacker.workspaceId, userId: shared.id });
      await sessionCache.settled();
      const sharedToken = await login(api, shared);
      const mallory = tenants.attacker.member;
      expectErrorBody(
        await api.get('/entries', { token: mallory.token, query: { workspaceId: tenants.victim.ids.workspaceId } }),
        403,
        'FORBIDDEN',
      );
      const listed = await api.get('/users', { token: mallory.token });
      expect(listed.body.map((u: { id: string }) => u.id)).toContain(shared.id); // she sees the user: only the rule stops her
      const before = (await User.findByPk(shared.id))!.toJSON();
      const problems: string[] = [];
      for (const transport of transports) {
        const attempts = [
          () => update(api, transport, mallory.token, shared.id, { password: TAKEOVER_PASSWORD }),
          () => update(api, transport, mallory.token, shared.id, { permissions: ['entry.create', 'entry.edit', 'entry.void'] }),
          () => update(api, transport, mallory.token, shared.id, { name: 'Owned by Mallory' }),
          () => update(api, transport, mallory.token, shared.id, { isActive: false }),
          () => deactivate(api, transport, mallory.token, shared.id),
        ];
        for (const attempt of attempts) {
          const res = await attempt();
          const problem =
            res.status === 403 ? errorShapeProblem(transport, res) : `expected 403, got ${res.status} ${res.text.slice(0, 200)}`;
          if (problem) problems.push(`${transport}: ${problem}`);
        }
      }
      expect(problems).toEqual([]);
      expect((await User.findByPk(shared.id))!.toJSON()).toEqual(before);
      expect((await api.get('/auth/me', { token: sharedToken })).status).toBe(200);
      expectErrorBody(await api.post('/auth/login', { email: shared.email, password: TAKEOVER_PASSWORD }), 401, 'UNAUTHORIZED');
      expect(await login(api, shared)).toEqual(expect.any(String));
    });
  });
}
