import { QueryTypes } from 'sequelize';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { WorkspaceMember } from '../../server/db/models/index.js';
import { clock } from '../../server/lib/clock.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { actor, addProjectMember, buildUser, login, entryWorld, makeEntry, makeTag } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { ISO_TS, SHA256, UUID } from '../support/entries.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});
afterEach(() => clock.reset());

/** Fixed clock times a little ahead of the real one (tokens stay valid). */
function timeline() {
  const base = Math.floor(Date.now() / 1000) * 1000 + 5_000;
  return (second: number) => {
    const at = new Date(base + second * 1000);
    clock.set(() => at);
    return at.toISOString();
  };
}

async function namedMember(workspaceId: number, name: string, email: string) {
  const user = await buildUser({ name, email });
  await WorkspaceMember.create({ workspaceId, userId: user.id });
  await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
  return { ...user, token: await login(api, user) };
}

const noteCount = async (entryId: number) => {
  const [row] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM entry_notes WHERE entry_id = :id', {
    replacements: { id: entryId },
    type: QueryTypes.SELECT,
  });
  return row.n;
};

describe('entry notes', () => {
  it('POST returns the note with its author; GET lists notes newest first', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const alice = await namedMember(w.workspaceId, 'Alice Author', `alice-${Date.now()}@example.test`);
    const bob = await namedMember(w.workspaceId, 'Bob Writer', `bob-${Date.now()}@example.test`);
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    const at = timeline();

    const t1 = at(1);
    const first = await api.post(`/entries/${entry.id}/notes`, { content: 'First note' }, { token: alice.token });
    expect([200, 201]).toContain(first.status);
    expect(Object.keys(first.body).sort()).toEqual(['author', 'authorId', 'content', 'createdAt', 'entryId', 'id']);
    expect(first.body).toEqual({
      id: expect.stringMatching(UUID),
      entryId: entry.id,
      content: 'First note',
      authorId: alice.id,
      author: { id: alice.id, name: 'Alice Author', email: alice.email },
      createdAt: t1,
    });
    at(2);
    const second = await api.post(`/entries/${entry.id}/notes`, { content: '  Second, with  spaces  ' }, { token: bob.token });
    at(3);
    const third = await api.post(`/entries/${entry.id}/notes`, { content: 'x'.repeat(10000) }, { token: alice.token });
    expect(second.body).toMatchObject({
      content: '  Second, with  spaces  ',
      authorId: bob.id,
      author: { id: bob.id, name: 'Bob Writer', email: bob.email },
    });
    expect(third.body.content).toHaveLength(10000);

    clock.reset();
    const listed = await api.get(`/entries/${entry.id}/notes`, { token: w.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([third.body, second.body, first.body]);
    expect(new Set(listed.body.map((n: { id: string }) => n.id)).size).toBe(3);
  });

  it('lists only the notes of that entry, and [] when there are none', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const a = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    const b = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    expect((await api.get(`/entries/${a.id}/notes`, { token: w.token })).body).toEqual([]);
    await api.post(`/entries/${b.id}/notes`, { content: 'on b' }, { token: w.token });
    expect((await api.get(`/entries/${a.id}/notes`, { token: w.token })).body).toEqual([]);
    expect((await api.get(`/entries/${b.id}/notes`, { token: w.token })).body.map((n: { content: string }) => n.content)).toEqual(['on b']);
  });

  it('records NOTE_ADDED by the author', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    const author = await actor(api, { workspaceId: w.workspaceId, permissions: ['entry.note'] });
    const at = timeline();
    const t = at(1);
    const note = await api.post(`/entries/${entry.id}/notes`, { content: 'Check the invoice' }, { token: author.token });
    clock.reset();
    const events = (await api.get(`/entries/${entry.id}/events`, { token: w.token })).body;
    expect(events.map((e: { kind: string }) => e.kind)).toEqual(['ENTRY_CREATED', 'NOTE_ADDED']);
    expect(events[1]).toMatchObject({ kind: 'NOTE_ADDED', actorType: 'USER', actorId: author.id, createdAt: t, entryId: entry.id });
    expect(events[1].data).toEqual({ noteId: note.body.id });
  });

  it('refuses content that is empty, too long, missing or not a string (400), storing nothing', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    for (const body of [
      { content: '' },
      { content: 'x'.repeat(10001) },
      {},
      { content: 5 },
      { content: null },
      { content: 'ok', authorId: w.owner.id },
    ]) {
      expectErrorBody(await api.post(`/entries/${entry.id}/notes`, body, { token: w.token }), 400, 'BAD_REQUEST');
    }
    expect(await noteCount(entry.id)).toBe(0);
    const events = (await api.get(`/entries/${entry.id}/events`, { token: w.token })).body;
    expect(events.map((e: { kind: string }) => e.kind)).toEqual(['ENTRY_CREATED']);
  });

  it('needs entry.note to add (403, also for a foreign entry) but no permission to read', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    await api.post(`/entries/${entry.id}/notes`, { content: 'existing' }, { token: w.token });
    const reader = await actor(api, { workspaceId: w.workspaceId, permissions: PERMISSIONS.filter((p) => p !== 'entry.note') });
    expectErrorBody(await api.post(`/entries/${entry.id}/notes`, { content: 'nope' }, { token: reader.token }), 403, 'FORBIDDEN');
    const stranger = await actor(api, { permissions: [] });
    expectErrorBody(await api.post(`/entries/${entry.id}/notes`, { content: 'nope' }, { token: stranger.token }), 403, 'FORBIDDEN');
    const bare = await actor(api, { workspaceId: w.workspaceId, permissions: [] });
    const listed = await api.get(`/entries/${entry.id}/notes`, { token: bare.token });
    expect(listed.status).toBe(200);
    expect(listed.body.map((n: { content: string }) => n.content)).toEqual(['existing']);
    expect(await noteCount(entry.id)).toBe(1);
  });

  it('a project-only member adds and reads notes on its project and gets 404 on another project', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const own = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    const other = await makeEntry(api, w.token, { projectId: w.projectIds[1] });
    const user = await buildUser({ name: 'Project Person' });
    await addProjectMember(w.projectIds[0], user.id);
    const token = await login(api, user);
    const added = await api.post(`/entries/${own.id}/notes`, { content: 'mine' }, { token });
    expect([200, 201]).toContain(added.status);
    expect(added.body.author).toEqual({ id: user.id, name: 'Project Person', email: user.email });
    expect((await api.get(`/entries/${own.id}/notes`, { token })).body).toEqual([added.body]);
    expectErrorBody(await api.post(`/entries/${other.id}/notes`, { content: 'not mine' }, { token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get(`/entries/${other.id}/notes`, { token }), 404, 'NOT_FOUND');
    expect(await noteCount(other.id)).toBe(0);
  });
});

describe('entry events', () => {
  it('lists the history oldest first, each event chained to the one before by prevHash', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const editor = await actor(api, { workspaceId: w.workspaceId });
    const tag = await makeTag(api, w.token, w.workspaceId, 'audit');
    const at = timeline();
    const times = [at(1)];
    const entry = await makeEntry(api, w.token, {
      projectId: w.projectIds[0],
      amountCents: 4200,
      entryDate: '2026-01-15',
      baseCurrency: 'EUR',
    });
    const steps: [() => Promise<{ status: number; text: string }>, string, Record<string, unknown>, string][] = [
      [
        () => api.patch(`/entries/${entry.id}`, { amountCents: 4300, description: 'Edited' }, { token: editor.token }),
        'ENTRY_UPDATED',
        { changes: { amountCents: { from: 4200, to: 4300 }, description: { from: null, to: 'Edited' } } },
        editor.id,
      ],
      [
        () => api.put(`/entries/${entry.id}/tags`, { tagIds: [tag] }, { token: w.token }),
        'TAGS_CHANGED',
        { from: [], to: [tag] },
        w.owner.id,
      ],
      [() => api.patch(`/entries/${entry.id}/reconcile`, { isReconciled: true }, { token: editor.token }), 'RECONCILED', {}, editor.id],
      [() => api.patch(`/entries/${entry.id}/reconcile`, { isReconciled: false }, { token: editor.token }), 'UNRECONCILED', {}, editor.id],
      [() => api.post(`/entries/${entry.id}/notes`, { content: 'A note' }, { token: w.token }), 'NOTE_ADDED', {}, w.owner.id],
      [
        () => api.patch(`/entries/${entry.id}/status`, { status: 'UNDER_REVIEW' }, { token: editor.token }),
        'STATUS_CHANGED',
        { from: 'PENDING', to: 'UNDER_REVIEW', reason: null },
        editor.id,
      ],
      [
        () => api.patch(`/entries/${entry.id}/status`, { status: 'REJECTED', reason: 'Missing receipt' }, { token: editor.token }),
        'STATUS_CHANGED',
        { from: 'UNDER_REVIEW', to: 'REJECTED', reason: 'Missing receipt' },
        editor.id,
      ],
    ];
    for (const [i, [call]] of steps.entries()) {
      times.push(at(2 + i));
      const res = await call();
      expect(res.status, res.text).toBe(200);
    }
    clock.reset();

    const res = await api.get(`/entries/${entry.id}/events`, { token: w.token });
    expect(res.status).toBe(200);
    const events = res.body as Record<string, any>[];
    expect(events.map((e) => e.kind)).toEqual(['ENTRY_CREATED', ...steps.map((s) => s[1])]);
    expect(events[0]).toEqual({
      id: expect.stringMatching(UUID),
      entryId: entry.id,
      kind: 'ENTRY_CREATED',
      actorType: 'USER',
      actorId: w.owner.id,
      data: { entryType: 'EXPENSE', amountCents: 4200, baseCurrency: 'EUR', entryDate: '2026-01-15', projectId: w.projectIds[0] },
      createdAt: times[0],
      prevHash: null,
      hash: expect.stringMatching(SHA256),
    });
    for (const [i, [, kind, data, actorId]] of steps.entries()) {
      const e = events[i + 1];
      expect(Object.keys(e).sort()).toEqual(['actorId', 'actorType', 'createdAt', 'data', 'entryId', 'hash', 'id', 'kind', 'prevHash']);
      expect(e).toMatchObject({ entryId: entry.id, kind, actorType: 'USER', actorId, createdAt: times[i + 1] });
      if (kind === 'NOTE_ADDED') expect(Object.keys(e.data)).toEqual(['noteId']);
      else expect(e.data).toEqual(data);
      expect(e.id).toMatch(UUID);
      expect(e.hash).toMatch(SHA256);
      expect(e.prevHash).toBe(events[i].hash);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(new Set(events.map((e) => e.hash)).size).toBe(events.length);
    for (const e of events) expect(e.createdAt).toMatch(ISO_TS);

    const verify = await api.get(`/entries/${entry.id}/events/verify`, { token: w.token });
    expect(verify.status).toBe(200);
    expect(verify.body).toEqual({ valid: true, count: events.length, firstBrokenEventId: null });
  });

  it('keeps a separate chain per entry', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const a = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    const b = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    await api.patch(`/entries/${a.id}`, { description: 'a' }, { token: w.token });
    const eb = (await api.get(`/entries/${b.id}/events`, { token: w.token })).body;
    expect(eb).toHaveLength(1);
    expect(eb[0]).toMatchObject({ entryId: b.id, kind: 'ENTRY_CREATED', prevHash: null });
    const ea = (await api.get(`/entries/${a.id}/events`, { token: w.token })).body;
    expect(ea.map((e: { entryId: number }) => e.entryId)).toEqual([a.id, a.id]);
    expect(ea[1].prevHash).toBe(ea[0].hash);
  });

  it('the database refuses UPDATE, DELETE and TRUNCATE of entry_events', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    const before = (await api.get(`/entries/${entry.id}/events`, { token: w.token })).body;
    expect(before).toHaveLength(1);
    await expect(
      db().query(`UPDATE entry_events SET data = '{"amountCents":1}' WHERE entry_id = :id`, { replacements: { id: entry.id } }),
    ).rejects.toThrow(/append-only/);
    await expect(db().query(`UPDATE entry_events SET kind = 'VOIDED'`)).rejects.toThrow(/append-only/);
    await expect(db().query('DELETE FROM entry_events WHERE entry_id = :id', { replacements: { id: entry.id } })).rejects.toThrow(
      /append-only/,
    );
    await expect(db().query('TRUNCATE entry_events')).rejects.toThrow(/append-only/);
    const after = (await api.get(`/entries/${entry.id}/events`, { token: w.token })).body;
    expect(after).toEqual(before);
  });

  it('verify names the first event whose stored content no longer matches its hash', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    await api.patch(`/entries/${entry.id}`, { description: 'one' }, { token: w.token });
    await api.patch(`/entries/${entry.id}`, { description: 'two' }, { token: w.token });
    const events = (await api.get(`/entries/${entry.id}/events`, { token: w.token })).body;
    expect(events).toHaveLength(3);
    // an edit behind the service's back (by someone able to switch the trigger off)
    await db().transaction(async (tx) => {
      await db().query('ALTER TABLE entry_events DISABLE TRIGGER entry_events_no_update_delete', { transaction: tx });
      await db().query(`UPDATE entry_events SET data = jsonb_set(data, '{changes,description,to}', '"forged"') WHERE id = :id`, {
        replacements: { id: events[1].id },
        transaction: tx,
      });
      await db().query('ALTER TABLE entry_events ENABLE TRIGGER entry_events_no_update_delete', { transaction: tx });
    });
    const verify = await api.get(`/entries/${entry.id}/events/verify`, { token: w.token });
    expect(verify.body).toEqual({ valid: false, count: 3, firstBrokenEventId: events[1].id });
  });

  it('needs no permission to read, but access to the entry (404 otherwise)', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    const bare = await actor(api, { workspaceId: w.workspaceId, permissions: [] });
    expect((await api.get(`/entries/${entry.id}/events`, { token: bare.token })).status).toBe(200);
    expect((await api.get(`/entries/${entry.id}/events/verify`, { token: bare.token })).body).toEqual({
      valid: true,
      count: 1,
      firstBrokenEventId: null,
    });
    const stranger = await actor(api);
    expectErrorBody(await api.get(`/entries/${entry.id}/events`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get(`/entries/${entry.id}/events/verify`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get('/entries/999999999/events', { token: w.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get('/entries/abc/events', { token: w.token }), 400, 'BAD_REQUEST');
  });
});
