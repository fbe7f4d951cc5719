import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../../server/db/database.js';
import { postgresErrorOf } from '../../../server/lib/errors.js';
import {
  actor,
  addProjectMember,
  createEntry,
  entryIn,
  accountingWorld,
  createConnection,
  queuedEntry,
  reviewWorld,
} from '../../support/factories/index.js';
import { events, getEntry } from '../../support/entries.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { expectStatus, REVIEW_KEYS, reviewsOf } from '../helpers.js';
import { eventKinds, review, reviewSnapshot } from './review-support.js';

let api: Api;

beforeAll(async () => {
  api = await startServer();
});

describe('auto-queue on entry create', () => {
  it('queues a review for a connection that requires review: the entry becomes UNDER_REVIEW, with events in order', async () => {
    const w = await reviewWorld(api);
    const entry = await createEntry(w);
    expect(entry.entryStatus).toBe('UNDER_REVIEW');
    const [row] = await reviewsOf(entry.id);
    expect(row).toMatchObject({
      connection_id: w.connection.id,
      status: 'QUEUED',
      reviewer_id: null,
      decided_at: null,
      workspace_id: w.workspaceId,
    });
    const history = await events(w, entry.id);
    expect(eventKinds(history)).toEqual(['ENTRY_CREATED', 'REVIEW_QUEUED', 'STATUS_CHANGED']);
    expect(history[1].data).toEqual({ reviewId: row.id, connectionId: w.connection.id });
    expect(history[2].data).toEqual({ from: 'PENDING', to: 'UNDER_REVIEW', reason: null });
    expect(history[1].actorType).toBe('USER');
    expect((await api.get(`/entries/${entry.id}/events/verify`, { token: w.token })).body).toMatchObject({ valid: true, count: 3 });
  });

  it('only for connections covering the project (projectIds empty = all), active, and requiring review', async () => {
    const w = await accountingWorld(api, { projects: 3 });
    const second = await createConnection(w, { name: 'second project only', projectIds: [w.projectIds[1]] });
    const inactive = await createConnection(w, { name: 'inactive' });
    await api.del(`/accounting/connections/${inactive.id}`, { token: w.token });
    await createConnection(w, { name: 'no review', requireReview: false });
    const inFirst = await createEntry(w, { projectId: w.projectIds[0] });
    expect(inFirst.entryStatus).toBe('PENDING');
    expect(await reviewsOf(inFirst.id)).toEqual([]);
    const inSecond = await createEntry(w, { projectId: w.projectIds[1] });
    expect(inSecond.entryStatus).toBe('UNDER_REVIEW');
    expect((await reviewsOf(inSecond.id)).map((r) => r.connection_id)).toEqual([second.id]);
  });

  it('two connections requiring review: two reviews, one status change', async () => {
    const w = await reviewWorld(api);
    const other = await createConnection(w, { name: 'second books' });
    const entry = await createEntry(w);
    expect((await reviewsOf(entry.id)).map((r) => r.connection_id).sort()).toEqual([w.connection.id, other.id].sort());
    expect(eventKinds(await events(w, entry.id))).toEqual(['ENTRY_CREATED', 'REVIEW_QUEUED', 'REVIEW_QUEUED', 'STATUS_CHANGED']);
    expect((await api.get(`/entries/${entry.id}/events/verify`, { token: w.token })).body.valid).toBe(true);
  });

  it("another workspace's connection queues nothing here; refunds of a reviewed workspace are queued too", async () => {
    await reviewWorld(api);
    const w = await accountingWorld(api);
    expect((await createEntry(w)).entryStatus).toBe('PENDING');
    const reviewed = await reviewWorld(api);
    const original = await createEntry(reviewed);
    const refund = await api.post(`/entries/${original.id}/refund`, { amountCents: 100 }, { token: reviewed.token });
    expectStatus(refund, 200);
    expect(refund.body.entryStatus).toBe('UNDER_REVIEW');
    expect(await reviewsOf(refund.body.id)).toHaveLength(1);
  });
});

describe('POST /accounting/reviews', () => {
  it('creates a QUEUED review with connectionId null; the PENDING entry becomes UNDER_REVIEW', async () => {
    const w = await accountingWorld(api);
    const entry = await createEntry(w);
    const res = await api.post('/accounting/reviews', { entryId: entry.id, connectionId: null }, { token: w.token });
    expectStatus(res, 200);
    expect(Object.keys(res.body).sort()).toEqual(REVIEW_KEYS);
    expect(res.body).toMatchObject({
      entryId: entry.id,
      connectionId: null,
      status: 'QUEUED',
      reviewerId: null,
      notes: null,
      categoryId: null,
      decidedAt: null,
    });
    expect(res.body.entry).toMatchObject({ id: entry.id, entryStatus: 'UNDER_REVIEW' });
    expect(eventKinds(await events(w, entry.id))).toEqual(['ENTRY_CREATED', 'REVIEW_QUEUED', 'STATUS_CHANGED']);
    const omitted = await createEntry(w);
    const res2 = await api.post('/accounting/reviews', { entryId: omitted.id }, { token: w.token });
    expect(res2.body.connectionId).toBeNull();
  });

  it('a second open review for the same (entry, connection) is a 409 — QUEUED or IN_REVIEW; after a decision a new one is fine', async () => {
    const w = await reviewWorld(api);
    const { entry, review: first } = await queuedEntry(w);
    const again = () => api.post('/accounting/reviews', { entryId: entry.id, connectionId: w.connection.id }, { token: w.token });
    expectErrorBody(await again(), 409, 'CONFLICT');
    await review.assign(w, first.id);
    expectErrorBody(await again(), 409, 'CONFLICT');
    // a null-connection review is another (entry, connection) pair, once
    expectStatus(await api.post('/accounting/reviews', { entryId: entry.id, connectionId: null }, { token: w.token }), 200);
    expectErrorBody(await api.post('/accounting/reviews', { entryId: entry.id, connectionId: null }, { token: w.token }), 409, 'CONFLICT');
    await review.requestChanges(w, first.id);
    const next = await again();
    expectStatus(next, 200);
    expect(next.body.status).toBe('QUEUED');
  });

  it('the database itself refuses a second open review for (entry, NULL connection)', async () => {
    const w = await accountingWorld(api);
    const entry = await createEntry(w);
    expectStatus(await api.post('/accounting/reviews', { entryId: entry.id }, { token: w.token }), 200);
    const { db } = await import('../../../server/db/database.js');
    const refused = await db()
      .query(`INSERT INTO accounting_reviews (workspace_id, entry_id, connection_id, status) VALUES (:ws, :id, NULL, 'IN_REVIEW')`, {
        replacements: { ws: w.workspaceId, id: entry.id },
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toMatchObject({ name: 'SequelizeUniqueConstraintError' });
    // Citus relays a worker's error without its constraint name: postgresErrorOf reads it from the message there (CONTRACT §24)
    expect(postgresErrorOf(refused)).toMatchObject({ constraint: 'accounting_reviews_one_open_key' });
  });

  it('a VOIDED entry gets no review (409); a COMPLETED one is queued and stays COMPLETED', async () => {
    const w = await accountingWorld(api);
    const voided = await entryIn(w, 'VOIDED');
    expectErrorBody(await api.post('/accounting/reviews', { entryId: voided.id }, { token: w.token }), 409, 'CONFLICT');
    expect(await reviewsOf(voided.id)).toEqual([]);
    const completed = await entryIn(w, 'COMPLETED');
    const res = await api.post('/accounting/reviews', { entryId: completed.id }, { token: w.token });
    expectStatus(res, 200);
    expect(res.body.entry.entryStatus).toBe('COMPLETED');
  });

  it("refuses a connection that does not route the entry's project (409), of another workspace (400/404), unknown (404)", async () => {
    const w = await accountingWorld(api);
    const narrow = await createConnection(w, { projectIds: [w.projectIds[1]], requireReview: false });
    const entry = await createEntry(w, { projectId: w.projectIds[0] });
    expectErrorBody(
      await api.post('/accounting/reviews', { entryId: entry.id, connectionId: narrow.id }, { token: w.token }),
      409,
      'CONFLICT',
    );
    const other = await accountingWorld(api);
    const foreign = await createConnection(other);
    expectErrorBody(
      await api.post('/accounting/reviews', { entryId: entry.id, connectionId: foreign.id }, { token: w.token }),
      404,
      'NOT_FOUND',
    );
    const both = await actor(api, { workspaceIds: [w.workspaceId, other.workspaceId] });
    expectErrorBody(
      await api.post('/accounting/reviews', { entryId: entry.id, connectionId: foreign.id }, { token: both.token }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.post(
        '/accounting/reviews',
        { entryId: entry.id, connectionId: '00000000-0000-4000-8000-000000000000' },
        { token: w.token },
      ),
      404,
      'NOT_FOUND',
    );
    expect(await reviewsOf(entry.id)).toEqual([]);
  });

  it('needs accounting.review (403); an entry of another workspace is 404; a project-only member is 404', async () => {
    const w = await accountingWorld(api);
    const entry = await createEntry(w);
    const lacking = await actor(api, { workspaceId: w.workspaceId, permissions: ['accounting.manage', 'entry.create'] });
    expectErrorBody(await api.post('/accounting/reviews', { entryId: entry.id }, { token: lacking.token }), 403, 'FORBIDDEN');
    const outsider = await actor(api);
    expectErrorBody(await api.post('/accounting/reviews', { entryId: entry.id }, { token: outsider.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post('/accounting/reviews', { entryId: 999_999_999 }, { token: w.token }), 404, 'NOT_FOUND');
    const projectOnly = await actor(api);
    await addProjectMember(w.projectId, projectOnly.id);
    expectStatus(await api.get(`/entries/${entry.id}`, { token: projectOnly.token }), 200); // sees the entry …
    expectErrorBody(await api.post('/accounting/reviews', { entryId: entry.id }, { token: projectOnly.token }), 404, 'NOT_FOUND'); // … not the review queue
    expectErrorBody(await api.post('/accounting/reviews', { entryId: entry.id, extra: 1 }, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await api.post('/accounting/reviews', { entryId: entry.id, connectionId: 'nope' }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
  });
});

describe('re-queue on edit', () => {
  it('an edit of an entry whose latest review is CHANGES_REQUESTED puts the review back in the queue and the entry under review', async () => {
    const w = await reviewWorld(api);
    const { entry, review: r } = await queuedEntry(w);
    await review.assign(w, r.id);
    const sent = await review.requestChanges(w, r.id, 'Wrong amount');
    expect(sent.body).toMatchObject({ status: 'CHANGES_REQUESTED', notes: 'Wrong amount' });
    expect(sent.body.entry.entryStatus).toBe('PENDING');
    const edited = await api.patch(`/entries/${entry.id}`, { amountCents: 12_345 }, { token: w.token });
    expectStatus(edited, 200);
    expect(edited.body.entryStatus).toBe('UNDER_REVIEW');
    const back = await review.get(w, r.id);
    expect(back.body).toMatchObject({ status: 'QUEUED', decidedAt: null, notes: 'Wrong amount' });
    const history = await events(w, entry.id);
    expect(eventKinds(history).slice(-3)).toEqual(['ENTRY_UPDATED', 'REVIEW_QUEUED', 'STATUS_CHANGED']);
    expect(history.at(-2).data).toEqual({ reviewId: r.id, connectionId: w.connection.id, requeued: true });
    expect((await api.get(`/entries/${entry.id}/events/verify`, { token: w.token })).body.valid).toBe(true);
  });

  it('re-queues the review and makes the SYNCED copy STALE in the same edit, events in order (one statement: entry-changes.ts)', async () => {
    const w = await reviewWorld(api);
    const { entry, review: r } = await queuedEntry(w);
    await review.requestChanges(w, r.id, 'Wrong amount');
    // a copy the connection already holds (as a push would have left it)
    const [sync] = await db().query<{ id: string }>(
      `INSERT INTO accounting_syncs (workspace_id, connection_id, entry_id, status, external_id, synced_at)
       VALUES ($1, $2, $3, 'SYNCED', 'ext-1', now()) RETURNING id`,
      { bind: [w.workspaceId, w.connection.id, entry.id], type: QueryTypes.SELECT },
    );
    const edited = await api.patch(`/entries/${entry.id}`, { amountCents: 4_321 }, { token: w.token });
    expectStatus(edited, 200);
    expect(edited.body.entryStatus).toBe('UNDER_REVIEW');
    expect((await review.get(w, r.id)).body.status).toBe('QUEUED');
    const [after] = await db().query<{ status: string }>('SELECT status FROM accounting_syncs WHERE id = $1', {
      bind: [sync.id],
      type: QueryTypes.SELECT,
    });
    expect(after.status).toBe('STALE');
    const history = await events(w, entry.id);
    expect(eventKinds(history).slice(-4)).toEqual(['ENTRY_UPDATED', 'REVIEW_QUEUED', 'STATUS_CHANGED', 'SYNC_STALE']);
    expect(history.at(-1)).toMatchObject({ data: expect.objectContaining({ cause: 'EDITED' }) });
    expect((await api.get(`/entries/${entry.id}/events/verify`, { token: w.token })).body.valid).toBe(true);
    // a second edit finds nothing to re-queue or mark: only its ENTRY_UPDATED
    const again = await api.patch(`/entries/${entry.id}`, { description: 'again' }, { token: w.token });
    expectStatus(again, 200);
    expect(eventKinds(await events(w, entry.id)).slice(-2)).toEqual(['SYNC_STALE', 'ENTRY_UPDATED']);
  });

  it('does nothing when the latest review is not CHANGES_REQUESTED, or for a change that is not an edit', async () => {
    const w = await reviewWorld(api);
    const { entry, review: r } = await queuedEntry(w);
    await review.requestChanges(w, r.id);
    await api.post('/accounting/reviews', { entryId: entry.id, connectionId: w.connection.id }, { token: w.token });
    const newest = (await reviewsOf(entry.id)).at(-1);
    await review.approve(w, newest.id);
    await api.patch(`/entries/${entry.id}/reconcile`, { isReconciled: true }, { token: w.token });
    const edited = await api.patch(`/entries/${entry.id}`, { description: 'after approval' }, { token: w.token });
    expect(edited.body.entryStatus).toBe('COMPLETED');
    expect((await reviewsOf(entry.id)).map((x) => x.status)).toEqual(['CHANGES_REQUESTED', 'APPROVED']);
    const plain = await reviewWorld(api);
    const { entry: e2, review: r2 } = await queuedEntry(plain);
    await review.requestChanges(plain, r2.id);
    await api.put(`/entries/${e2.id}/tags`, { tagIds: [] }, { token: plain.token });
    await api.patch(`/entries/${e2.id}/status`, { status: 'COMPLETED' }, { token: plain.token });
    expect((await review.get(plain, r2.id)).body.status).toBe('CHANGES_REQUESTED');
  });
});

describe('POST /accounting/connections/{id}/backfill-reviews', () => {
  it("queues one review per non-voided entry of the connection's projects lacking one; a second call queues 0", async () => {
    const w = await accountingWorld(api, { projects: 2 });
    const pending = await createEntry(w, { projectId: w.projectIds[0] });
    const completed = await entryIn(w, 'COMPLETED', { projectId: w.projectIds[0] });
    const rejected = await entryIn(w, 'REJECTED', { projectId: w.projectIds[0] });
    const voided = await entryIn(w, 'VOIDED', { projectId: w.projectIds[0] });
    const elsewhere = await createEntry(w, { projectId: w.projectIds[1] });
    const c = await createConnection(w, { requireReview: false, projectIds: [w.projectIds[0]] });
    const other = await createConnection(w, { requireReview: false });
    const reviewedByOther = await createEntry(w, { projectId: w.projectIds[0] });
    await api.post('/accounting/reviews', { entryId: reviewedByOther.id, connectionId: other.id }, { token: w.token });
    const alreadyReviewed = await createEntry(w, { projectId: w.projectIds[0] });
    const own = await api.post('/accounting/reviews', { entryId: alreadyReviewed.id, connectionId: c.id }, { token: w.token });
    await review.reject(w as any, own.body.id);

    const res = await api.post(`/accounting/connections/${c.id}/backfill-reviews`, undefined, { token: w.token });
    expectStatus(res, 200);
    expect(res.body).toEqual({ queued: 4 });
    const queuedFor = async (id: number) => (await reviewsOf(id)).filter((r) => r.connection_id === c.id).map((r) => r.status);
    expect(await queuedFor(pending.id)).toEqual(['QUEUED']);
    expect(await queuedFor(completed.id)).toEqual(['QUEUED']);
    expect(await queuedFor(rejected.id)).toEqual(['QUEUED']);
    expect(await queuedFor(reviewedByOther.id)).toEqual(['QUEUED']);
    expect(await queuedFor(voided.id)).toEqual([]);
    expect(await queuedFor(elsewhere.id)).toEqual([]);
    expect(await queuedFor(alreadyReviewed.id)).toEqual(['REJECTED']);
    expect((await getEntry(w, pending.id)).entryStatus).toBe('UNDER_REVIEW');
    expect((await getEntry(w, completed.id)).entryStatus).toBe('COMPLETED');
    expect(eventKinds(await events(w, pending.id)).slice(-2)).toEqual(['REVIEW_QUEUED', 'STATUS_CHANGED']);

    expect((await api.post(`/accounting/connections/${c.id}/backfill-reviews`, undefined, { token: w.token })).body).toEqual({ queued: 0 });
  });

  it('two parallel backfills of one connection queue each entry once', async () => {
    const w = await accountingWorld(api);
    for (let i = 0; i < 6; i++) await createEntry(w);
    const c = await createConnection(w, { requireReview: false });
    const results = await Promise.all(
      [1, 2, 3].map(() => api.post(`/accounting/connections/${c.id}/backfill-reviews`, undefined, { token: w.token })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.map((r) => r.body.queued).sort()).toEqual([0, 0, 6]);
  });

  it('needs accounting.manage (403); a foreign connection is 404', async () => {
    const w = await accountingWorld(api);
    const c = await createConnection(w);
    const reviewer = await actor(api, { workspaceId: w.workspaceId, permissions: ['accounting.review'] });
    expectErrorBody(
      await api.post(`/accounting/connections/${c.id}/backfill-reviews`, undefined, { token: reviewer.token }),
      403,
      'FORBIDDEN',
    );
    const outsider = await actor(api);
    expectErrorBody(
      await api.post(`/accounting/connections/${c.id}/backfill-reviews`, undefined, { token: outsider.token }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('GET /accounting/reviews', () => {
  it('needs workspaceId or connectionId (400); a foreign workspace is 403 and a foreign connection 404', async () => {
    const w = await reviewWorld(api);
    expectErrorBody(await api.get('/accounting/reviews', { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.get('/accounting/reviews', { token: w.token, query: { status: 'QUEUED' } }), 400, 'BAD_REQUEST');
    const other = await reviewWorld(api);
    expectErrorBody(await api.get('/accounting/reviews', { token: w.token, query: { workspaceId: other.workspaceId } }), 403, 'FORBIDDEN');
    expectErrorBody(
      await api.get('/accounting/reviews', { token: w.token, query: { connectionId: other.connection.id } }),
      404,
      'NOT_FOUND',
    );
    expectErrorBody(
      await api.get('/accounting/reviews', { token: w.token, query: { workspaceId: w.workspaceId, limit: 101 } }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.get('/accounting/reviews', { token: w.token, query: { workspaceId: w.workspaceId, status: 'DONE' } }),
      400,
      'BAD_REQUEST',
    );
  });

  it('pages newest first with total, and filters by connectionId, status and reviewerId; each item embeds its entry', async () => {
    const w = await reviewWorld(api);
    const second = await createConnection(w, { name: 'second', requireReview: false });
    const made: { entry: any; review: any }[] = [];
    for (let i = 0; i < 5; i++) made.push(await queuedEntry(w, { description: `e${i}` }));
    const colleague = await actor(api, { workspaceId: w.workspaceId });
    await review.assign(w, made[0].review.id);
    await review.assign(w, made[1].review.id, colleague.token);
    await review.approve(w, made[2].review.id);
    const manual = await api.post('/accounting/reviews', { entryId: made[3].entry.id, connectionId: second.id }, { token: w.token });

    const page = await api.get('/accounting/reviews', { token: w.token, query: { workspaceId: w.workspaceId, limit: 2, offset: 1 } });
    expectStatus(page, 200);
    expect(page.body).toMatchObject({ total: 6, limit: 2, offset: 1 });
    const all = await api.get('/accounting/reviews', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(all.body).toMatchObject({ total: 6, limit: 20, offset: 0 });
    expect(page.body.items.map((r: any) => r.id)).toEqual(all.body.items.slice(1, 3).map((r: any) => r.id));
    expect(all.body.items[0].id).toBe(manual.body.id);
    for (const item of all.body.items) {
      expect(Object.keys(item).sort()).toEqual(REVIEW_KEYS);
      expect(item.entry.id).toBe(item.entryId);
    }
    const ids = async (query: Record<string, string | number>) =>
      (await api.get('/accounting/reviews', { token: w.token, query })).body.items.map((r: any) => r.id).sort();
    expect(await ids({ connectionId: second.id })).toEqual([manual.body.id]);
    expect(await ids({ workspaceId: w.workspaceId, status: 'IN_REVIEW' })).toEqual([made[0].review.id, made[1].review.id].sort());
    expect(await ids({ workspaceId: w.workspaceId, reviewerId: colleague.id })).toEqual([made[1].review.id]);
    expect(await ids({ connectionId: w.connection.id, status: 'APPROVED' })).toEqual([made[2].review.id]);
    expect(await ids({ workspaceId: w.workspaceId, status: 'QUEUED' })).toEqual(
      [made[3].review.id, made[4].review.id, manual.body.id].sort(),
    );
    expect(await ids({ workspaceId: w.workspaceId, connectionId: second.id, status: 'QUEUED' })).toEqual([manual.body.id]);
  });

  it('GET /accounting/reviews/{id}: 404 for another workspace, 403 without accounting.review', async () => {
    const w = await reviewWorld(api);
    const { review: r } = await queuedEntry(w);
    const res = await review.get(w, r.id);
    expect(res.body).toEqual(r);
    const outsider = await reviewWorld(api);
    expectErrorBody(await review.get(w, r.id, outsider.token), 404, 'NOT_FOUND');
    const lacking = await actor(api, { workspaceId: w.workspaceId, permissions: ['accounting.manage'] });
    expectErrorBody(await review.get(w, r.id, lacking.token), 403, 'FORBIDDEN');
    expect(await reviewSnapshot(w, r.id, r.entryId)).toMatchObject({ review: r });
  });
});
