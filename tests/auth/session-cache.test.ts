import { beforeAll, describe, expect, it } from 'vitest';
import jwt from 'jsonwebtoken';
import { transaction, type Transaction } from '../../server/db/database.js';
import { ProjectMember, Session, User, WorkspaceMember } from '../../server/db/models/index.js';
import type { Permission } from '../../shared/permissions.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';
import { actor, buildWorkspace } from '../support/factories.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { killChangeListener, otherProcess } from '../support/other-process.js';

/**
 * Sessions are served from memory for a few seconds; every change of a user, session or
 * membership must still take effect at once. Changes here are made the way another server
 * process or an operator would: SQL on a connection of its own, never through this process,
 * and the next request follows at once (no waiting for the notification, as a client could not).
 */
let api: Api;
const other = otherProcess();
beforeAll(async () => {
  api = await startServer();
});

async function cachedMember(permissions: Permission[] = ['workspace.read']) {
  const ws = await buildWorkspace();
  const me = await actor(api, { workspaceId: ws.id, permissions });
  expect((await api.get('/auth/me', { token: me.token })).status).toBe(200);
  await expect.poll(() => sessionCache.isListening(), { timeout: 5_000 }).toBe(true);
  expect((await api.get('/auth/me', { token: me.token })).status).toBe(200); // now cached
  return { ws, me };
}

describe('auth session cache', () => {
  it('sees a permission change made by another process', async () => {
    const { me } = await cachedMember(['workspace.read']);
    const list = () => api.get('/workspaces', { token: me.token });
    expect((await list()).status).toBe(200);
    await other.sql(`UPDATE users SET permissions = '{}' WHERE id = $1`, [me.id]);
    expectErrorBody(await list(), 403, 'FORBIDDEN');
  });

  it('sees a revoked session and a deactivated user made by another process', async () => {
    const a = await cachedMember();
    await other.sql('UPDATE sessions SET revoked_at = now() WHERE user_id = $1', [a.me.id]);
    expectErrorBody(await api.get('/auth/me', { token: a.me.token }), 401, 'UNAUTHORIZED');

    const b = await cachedMember();
    await other.sql('UPDATE users SET is_active = false WHERE id = $1', [b.me.id]);
    expectErrorBody(await api.get('/auth/me', { token: b.me.token }), 401, 'UNAUTHORIZED');
  });

  it('sees a membership removed by another process: the workspace is out of reach at once', async () => {
    const { ws, me } = await cachedMember();
    expect((await api.get('/parties', { token: me.token, query: { workspaceId: ws.id } })).status).toBe(200);
    await other.sql('DELETE FROM workspace_members WHERE user_id = $1', [me.id]);
    expectErrorBody(await api.get('/parties', { token: me.token, query: { workspaceId: ws.id } }), 403, 'FORBIDDEN');
  });

  it('lets a new workspace be used by its creator in the very next request (the membership is not cached stale)', async () => {
    const { me } = await cachedMember(['workspace.read', 'workspace.create']);
    for (let i = 0; i < 5; i++) {
      const created = await api.post('/workspaces', { name: `Fresh ${i}` }, { token: me.token });
      expect(created.status).toBe(200);
      expect((await api.get(`/workspaces/${created.body.id}`, { token: me.token })).status).toBe(200);
    }
  });

  it('forgets at commit every ORM write of a user, session or membership made by this process (no notification needed)', async () => {
    const sessionOf = (token: string) => (jwt.decode(token) as { sid: string }).sid;
    const writes: [
      string,
      (me: { id: string; token: string }, ws: { id: number; projectIds: number[] }, tx: Transaction) => Promise<unknown>,
    ][] = [
      [
        'user saved',
        async (me, _ws, tx) => (await User.findByPk(me.id, { transaction: tx }))!.update({ name: 'Renamed' }, { transaction: tx }),
      ],
      ['users bulk-updated', (me, _ws, tx) => User.update({ name: 'Bulk' }, { where: { id: me.id }, transaction: tx })],
      [
        'session revoked by id',
        (me, _ws, tx) => Session.update({ revokedAt: new Date() }, { where: { id: sessionOf(me.token) }, transaction: tx }),
      ],
      [
        'sessions revoked by user',
        (me, _ws, tx) => Session.update({ revokedAt: new Date() }, { where: { userId: me.id }, transaction: tx }),
      ],
      [
        'workspace membership removed',
        (me, ws, tx) => WorkspaceMember.destroy({ where: { workspaceId: ws.id, userId: me.id }, transaction: tx }),
      ],
      [
        'project membership added',
        (me, ws, tx) => ProjectMember.create({ projectId: ws.projectIds[0], userId: me.id, workspaceId: ws.id }, { transaction: tx }),
      ],
    ];
    for (const [what, write] of writes) {
      const { ws, me } = await cachedMember();
      const sid = sessionOf(me.token);
      expect(sessionCache.holds(sid), what).toBe(true);
      let heldAtCommit: boolean | undefined;
      await transaction(async (tx) => {
        await write(me, ws, tx);
        tx.afterCommit(() => {
          heldAtCommit = sessionCache.holds(sid);
        });
      });
      expect(heldAtCommit, what).toBe(false);
    }
  });

  it('forgets a session revoked through the API without waiting for the notification', async () => {
    const { me } = await cachedMember();
    expect((await api.post('/auth/logout', undefined, { token: me.token })).status).toBe(200);
    expectErrorBody(await api.get('/auth/me', { token: me.token }), 401, 'UNAUTHORIZED');
  });

  it('reads sessions live while its LISTEN connection is gone, and listens again afterwards', async () => {
    const { me } = await cachedMember(['workspace.read']);
    const list = () => api.get('/workspaces', { token: me.token });
    expect((await list()).status).toBe(200);
    // kill the listener's backend: the cache must drop everything and stop serving from memory
    await killChangeListener(other, me.token);
    await other.sql(`UPDATE users SET permissions = '{}' WHERE id = $1`, [me.id]);
    expectErrorBody(await list(), 403, 'FORBIDDEN');
    await expect.poll(() => sessionCache.isListening(), { timeout: 5_000 }).toBe(true);
    await other.sql(`UPDATE users SET permissions = '{workspace.read}' WHERE id = $1`, [me.id]);
    expect((await list()).status).toBe(200);
  });
});
