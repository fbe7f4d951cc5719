import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { ChangeListener, LISTENER_APPLICATION_NAME, changeListener } from '../../server/db/change-listener.js';
import { pgClientConfig, transaction, type Transaction } from '../../server/db/database.js';
import { ProjectMember, Session, User, WorkspaceMember } from '../../server/db/models/index.js';
import type { Permission } from '../../shared/permissions.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';
import { actor, buildWorkspace } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { runtime } from '../../server/runtime.js';
import { killChangeListener, otherProcess } from '../support/other-process.js';

/**
 * Sessions are served from memory for a few seconds, with no query; every change of a user,
 * session or membership must still take effect at once. Changes here are made the way another
 * server instance would: SQL on a connection of its own, never through this process, followed
 * by what every instance's auth write does before answering its client, waiting until every
 * listener of the database has acknowledged the change (its own LISTEN connection, a second
 * ChangeListener here). The next request follows at once, with no waiting of its own. An
 * operator's SQL, which nobody acknowledges, reaches the cache within the notification delay.
 */
let api: Api;
const other = otherProcess();
/** the other instance's LISTEN connection */
const otherListener = new ChangeListener();
/** SQL on the other instance, as its auth writes do it: commit, then wait for every listener */
async function otherInstance(text: string, params: unknown[]): Promise<void> {
  await other.sql(text, params);
  await otherListener.acknowledgedEverywhere();
}
beforeAll(async () => {
  api = await startServer();
  for (let i = 0; i < 250 && !otherListener.isListening(); i++) await sleep(20);
  if (!otherListener.isListening()) throw new Error('the other instance’s listener does not listen');
});
afterAll(() => otherListener.stop());

async function cachedMember(permissions: Permission[] = ['workspace.read']) {
  const ws = await buildWorkspace();
  const me = await actor(api, { workspaceId: ws.id, permissions });
  expect((await api.get('/auth/me', { token: me.token })).status).toBe(200);
  await expect.poll(() => sessionCache.isListening(), { timeout: 5_000 }).toBe(true);
  expect((await api.get('/auth/me', { token: me.token })).status).toBe(200); // now cached
  return { ws, me };
}

describe('auth session cache', () => {
  it('serves a kept session with no query and no wait (no round trip: it resolves within microtasks)', async () => {
    const { me } = await cachedMember();
    const sid = (jwt.decode(me.token) as { sid: string }).sid;
    const load = vi.fn(async () => undefined);
    let served: unknown;
    void sessionCache.lookup(sid, me.id, load).then((v) => (served = v));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(load).not.toHaveBeenCalled();
    expect(served).toMatchObject({ id: me.id });
  });

  it('sees a permission change made by another instance', async () => {
    const { me } = await cachedMember(['workspace.read']);
    const list = () => api.get('/workspaces', { token: me.token });
    expect((await list()).status).toBe(200);
    await otherInstance(`UPDATE users SET permissions = '{}' WHERE id = $1`, [me.id]);
    expectErrorBody(await list(), 403, 'FORBIDDEN');
  });

  it('sees a revoked session and a deactivated user made by another instance', async () => {
    const a = await cachedMember();
    await otherInstance('UPDATE sessions SET revoked_at = now() WHERE user_id = $1', [a.me.id]);
    expectErrorBody(await api.get('/auth/me', { token: a.me.token }), 401, 'UNAUTHORIZED');

    const b = await cachedMember();
    await otherInstance('UPDATE users SET is_active = false WHERE id = $1', [b.me.id]);
    expectErrorBody(await api.get('/auth/me', { token: b.me.token }), 401, 'UNAUTHORIZED');
  });

  it('sees a membership removed by another instance: the workspace is out of reach at once', async () => {
    const { ws, me } = await cachedMember();
    expect((await api.get('/parties', { token: me.token, query: { workspaceId: ws.id } })).status).toBe(200);
    await otherInstance('DELETE FROM workspace_members WHERE user_id = $1', [me.id]);
    expectErrorBody(await api.get('/parties', { token: me.token, query: { workspaceId: ws.id } }), 403, 'FORBIDDEN');
  });

  it('sees an operator’s direct SQL (nobody waits for acknowledgements) within the notification delay', async () => {
    const { me } = await cachedMember(['workspace.read']);
    const list = async () => (await api.get('/workspaces', { token: me.token })).status;
    expect(await list()).toBe(200);
    await other.sql(`UPDATE users SET permissions = '{}' WHERE id = $1`, [me.id]);
    await expect.poll(list, { timeout: 5_000, interval: 10 }).toBe(403);
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

/** A LISTEN connection that looks like another instance's listener but answers acknowledgement requests only when told. */
async function manualListener() {
  const client = new pg.Client({ ...pgClientConfig(), application_name: 'manual listener (starting)' });
  await client.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const requests: string[] = [];
  client.on('notification', (m) => {
    if (m.channel === 'auth_changed' && m.payload?.startsWith('ack?')) requests.push(m.payload);
  });
  await client.query('LISTEN auth_changed');
  await client.query(`SET application_name = '${LISTENER_APPLICATION_NAME}'`);
  return {
    pid,
    requests,
    /** answers an `ack?<reply channel>:<token>` request as ChangeListener does */
    answer: async (request: string) => {
      const at = request.lastIndexOf(':');
      await client.query('SELECT pg_notify($1, $2)', [request.slice(4, at), `${request.slice(at + 1)}:${pid}`]);
    },
    end: () => client.end(),
  };
}

describe('auth writers wait for every listener (changeListener.acknowledgedEverywhere)', () => {
  it('waits until a listener that has the request answers it', async () => {
    const slow = await manualListener();
    try {
      let done = false;
      const waiting = changeListener.acknowledgedEverywhere(30_000).then(() => (done = true));
      await expect.poll(() => slow.requests.length, { timeout: 5_000 }).toBe(1);
      await sleep(300); // this process's own listener has answered long since
      expect(done).toBe(false);
      await slow.answer(slow.requests[0]);
      await waiting;
      expect(done).toBe(true);
    } finally {
      await slow.end();
    }
  });

  it('stops waiting for a listener whose connection ends', async () => {
    const gone = await manualListener();
    const warn = vi.spyOn(runtime().logger, 'warn');
    try {
      const waiting = changeListener.acknowledgedEverywhere(30_000);
      await expect.poll(() => gone.requests.length, { timeout: 5_000 }).toBe(1);
      await gone.end();
      await waiting;
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('gives up on a listener that never answers after the bound, with a warning naming its pid', async () => {
    const mute = await manualListener();
    const warn = vi.spyOn(runtime().logger, 'warn');
    try {
      await changeListener.acknowledgedEverywhere(200);
      expect(mute.requests).toHaveLength(1);
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ waitingFor: [mute.pid] }), expect.stringMatching(/did not acknowledge/));
    } finally {
      warn.mockRestore();
      await mute.end();
    }
  });

  it('makes an API logout wait for the other instance’s listener before answering', async () => {
    const { me } = await cachedMember();
    const slow = await manualListener();
    try {
      let answered = false;
      const logout = api.post('/auth/logout', undefined, { token: me.token }).then((r) => {
        answered = true;
        return r;
      });
      await expect.poll(() => slow.requests.length, { timeout: 5_000 }).toBe(1);
      await sleep(300);
      expect(answered).toBe(false);
      await slow.answer(slow.requests[0]);
      expect((await logout).status).toBe(200);
    } finally {
      await slow.end();
    }
  });
});
