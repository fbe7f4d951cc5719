import { beforeAll, describe, expect, it } from 'vitest';
import { actor, createCategory, queuedEntry, reviewWorld, type ReviewWorld } from '../../support/factories/index.js';
import { events, getEntry, setStatus } from '../../support/entries.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { expectStatus, reviewsOf, syncsOf } from '../helpers.js';
import { eventKinds, review, reviewSnapshot } from './review-support.js';

let api: Api;
let w: ReviewWorld;

beforeAll(async () => {
  api = await startServer();
  w = await reviewWorld(api);
});

describe('assign', () => {
  it('QUEUED → IN_REVIEW with the caller as reviewer; IN_REVIEW → IN_REVIEW hands it to another caller; the entry is unchanged', async () => {
    const { entry, review: r } = await queuedEntry(w);
    const res = await review.assign(w, r.id);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'IN_REVIEW', reviewerId: w.userId, decidedAt: null });
    expect(res.body.entry.entryStatus).toBe('UNDER_REVIEW');
    const colleague = await actor(api, { workspaceId: w.workspaceId });
    const taken = await review.assign(w, r.id, colleague.token);
    expect(taken.body).toMatchObject({ status: 'IN_REVIEW', reviewerId: colleague.id });
    const history = await events(w, entry.id);
    expect(eventKinds(history).slice(-2)).toEqual(['REVIEW_ASSIGNED', 'REVIEW_ASSIGNED']);
    expect(history.at(-1).data).toMatchObject({
      reviewId: r.id,
      from: 'IN_REVIEW',
      to: 'IN_REVIEW',
      reviewerId: colleague.id,
      previousReviewerId: w.userId,
    });
    expect(history.at(-1).actorId).toBe(colleague.id);
  });
});

describe('approve', () => {
  it('→ APPROVED with category and notes, decidedAt set; the entry becomes COMPLETED; MANUAL_PUSH creates one PENDING sync record', async () => {
    const category = await createCategory(w, { accountType: 'EXPENSE' });
    const { entry, review: r } = await queuedEntry(w);
    await review.assign(w, r.id);
    const res = await review.approve(w, r.id, { categoryId: category.id, notes: 'Looks right' });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'APPROVED', categoryId: category.id, notes: 'Looks right', reviewerId: w.userId });
    expect(res.body.decidedAt).toMatch(/Z$/);
    expect(res.body.entry.entryStatus).toBe('COMPLETED');
    expect((await getEntry(w, entry.id)).entryStatus).toBe('COMPLETED');
    const history = await events(w, entry.id);
    expect(eventKinds(history).slice(-2)).toEqual(['REVIEW_APPROVED', 'STATUS_CHANGED']);
    expect(history.at(-2).data).toMatchObject({
      reviewId: r.id,
      connectionId: w.connection.id,
      categoryId: category.id,
      notes: 'Looks right',
    });
    expect(history.at(-1).data).toEqual({ from: 'UNDER_REVIEW', to: 'COMPLETED', reason: null });
    const syncs = await syncsOf(entry.id);
    expect(syncs).toHaveLength(1);
    expect(syncs[0]).toMatchObject({
      connection_id: w.connection.id,
      workspace_id: w.workspaceId,
      status: 'PENDING',
      attempts: 0,
      external_id: null,
      synced_at: null,
    });
    expect((await api.get(`/entries/${entry.id}/events/verify`, { token: w.token })).body.valid).toBe(true);
  });

  it('approves straight from QUEUED without a body', async () => {
    const { review: r } = await queuedEntry(w);
    const res = await review.approve(w, r.id);
    expect(res.body).toMatchObject({ status: 'APPROVED', categoryId: null, notes: null, reviewerId: w.userId });
  });

  // AUTO_PUSH / BIDIRECTIONAL push right after the approval (accounting sync): this connection requires
  // complete entries and the entry is not, so the push precondition fails and the record is FAILED (CONTRACT §8)
  it.each([
    ['MANUAL', 0],
    ['AUTO_PUSH', 1],
    ['BIDIRECTIONAL', 1],
  ])('sync effect in %s mode: %i sync record(s)', async (syncMode, count) => {
    const ws = await reviewWorld(api, { syncMode });
    const { entry, review: r } = await queuedEntry(ws);
    expectStatus(await review.approve(ws, r.id), 200);
    const syncs = await syncsOf(entry.id);
    expect(syncs).toHaveLength(count);
    if (count) expect(syncs[0]).toMatchObject({ status: 'FAILED', connection_id: ws.connection.id });
    if (count) expect(syncs[0].last_error).toMatch(/requireCompletenessForSync/);
  });

  it('a review without a connection creates no sync record; an existing sync record is left as it is', async () => {
    const ws = await reviewWorld(api);
    const { entry, review: r } = await queuedEntry(ws);
    const manual = await api.post('/accounting/reviews', { entryId: entry.id, connectionId: null }, { token: ws.token });
    await review.approve(ws, manual.body.id);
    expect(await syncsOf(entry.id)).toEqual([]);
    const { db } = await import('../../../server/db/database.js');
    await db().query(
      `INSERT INTO accounting_syncs (workspace_id, connection_id, entry_id, status, external_id, synced_at) VALUES (:ws, :c, :e, 'SYNCED', 'ext-1', now())`,
      { replacements: { ws: ws.workspaceId, c: ws.connection.id, e: entry.id } },
    );
    expectStatus(await review.approve(ws, r.id), 200);
    expect((await syncsOf(entry.id)).map((s) => [s.status, s.external_id])).toEqual([['SYNCED', 'ext-1']]);
  });

  it('categoryId must be an active category of the workspace (400), and nothing changes', async () => {
    const { entry, review: r } = await queuedEntry(w);
    const inactive = await createCategory(w);
    await api.del(`/accounting/categories/${inactive.id}`, { token: w.token });
    const other = await reviewWorld(api);
    const foreign = await createCategory(other);
    const before = await reviewSnapshot(w, r.id, entry.id);
    for (const categoryId of [inactive.id, foreign.id, '00000000-0000-4000-8000-000000000000']) {
      expectErrorBody(await review.approve(w, r.id, { categoryId }), 400, 'BAD_REQUEST');
    }
    expectErrorBody(await review.approve(w, r.id, { categoryId: 'not-a-uuid' }), 400, 'BAD_REQUEST');
    expectErrorBody(await review.approve(w, r.id, { status: 'APPROVED' }), 400, 'BAD_REQUEST');
    expect(await reviewSnapshot(w, r.id, entry.id)).toEqual(before);
    expect(await syncsOf(entry.id)).toEqual([]);
  });
});

describe('reject and request changes', () => {
  it('reject → REJECTED; the entry becomes REJECTED with the notes as its reason', async () => {
    const { entry, review: r } = await queuedEntry(w);
    const res = await review.reject(w, r.id, 'Duplicate of INV-7');
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'REJECTED', notes: 'Duplicate of INV-7', reviewerId: w.userId });
    expect(res.body.decidedAt).not.toBeNull();
    expect(res.body.entry).toMatchObject({ entryStatus: 'REJECTED', statusReason: 'Duplicate of INV-7' });
    const history = await events(w, entry.id);
    expect(eventKinds(history).slice(-2)).toEqual(['REVIEW_REJECTED', 'STATUS_CHANGED']);
    expect(history.at(-1).data).toEqual({ from: 'UNDER_REVIEW', to: 'REJECTED', reason: 'Duplicate of INV-7' });
    expect(await syncsOf(entry.id)).toEqual([]);
  });

  it('request-changes → CHANGES_REQUESTED; the entry goes back to PENDING', async () => {
    const { entry, review: r } = await queuedEntry(w);
    await review.assign(w, r.id);
    const res = await review.requestChanges(w, r.id, 'Attach the receipt');
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'CHANGES_REQUESTED', notes: 'Attach the receipt' });
    expect(res.body.entry.entryStatus).toBe('PENDING');
    expect(eventKinds(await events(w, entry.id)).slice(-2)).toEqual(['REVIEW_CHANGES_REQUESTED', 'STATUS_CHANGED']);
  });

  it.each([
    ['reject', review.reject],
    ['request-changes', review.requestChanges],
  ])('%s needs notes (400), also blank ones, and changes nothing', async (_label, call) => {
    const { entry, review: r } = await queuedEntry(w);
    const before = await reviewSnapshot(w, r.id, entry.id);
    expectErrorBody(await call(w, r.id, null), 400, 'BAD_REQUEST');
    expectErrorBody(await call(w, r.id, '   '), 400, 'BAD_REQUEST');
    expectErrorBody(await call(w, r.id, 'x'.repeat(2001)), 400, 'BAD_REQUEST');
    expect(await reviewSnapshot(w, r.id, entry.id)).toEqual(before);
  });
});

describe('every other operation is a 409 and changes nothing', () => {
  const operations = {
    assign: (id: string) => review.assign(w, id),
    approve: (id: string) => review.approve(w, id),
    reject: (id: string) => review.reject(w, id),
    'request-changes': (id: string) => review.requestChanges(w, id),
  };
  const decide = {
    APPROVED: (id: string) => review.approve(w, id),
    REJECTED: (id: string) => review.reject(w, id),
    CHANGES_REQUESTED: (id: string) => review.requestChanges(w, id),
  };
  const cases = (Object.keys(decide) as (keyof typeof decide)[]).flatMap((status) =>
    (Object.keys(operations) as (keyof typeof operations)[]).map((operation) => [status, operation] as const),
  );

  it.each(cases)('%s review: %s → 409', async (status, operation) => {
    const { entry, review: r } = await queuedEntry(w);
    expectStatus(await decide[status](r.id), 200);
    const before = await reviewSnapshot(w, r.id, entry.id);
    expect(before.review.status).toBe(status);
    expectErrorBody(await operations[operation](r.id), 409, 'CONFLICT');
    expect(await reviewSnapshot(w, r.id, entry.id)).toEqual(before);
  });

  it.each([
    ['approve', 'VOIDED'],
    ['reject', 'VOIDED'],
    ['request-changes', 'VOIDED'],
    ['approve', 'REJECTED'],
    ['approve', 'CANCELLED'],
    ['reject', 'COMPLETED'],
    ['request-changes', 'COMPLETED'],
  ] as const)('%s when the entry is %s (not allowed by the entry status table) → 409', async (operation, entryStatus) => {
    const { entry, review: r } = await queuedEntry(w);
    const res =
      entryStatus === 'VOIDED'
        ? await api.post(`/entries/${entry.id}/void`, { reason: 'gone' }, { token: w.token })
        : await setStatus(w, entry.id, entryStatus, entryStatus === 'COMPLETED' ? undefined : 'set aside');
    expectStatus(res, 200);
    const before = await reviewSnapshot(w, r.id, entry.id);
    expectErrorBody(await operations[operation](r.id), 409, 'CONFLICT');
    expect(await reviewSnapshot(w, r.id, entry.id)).toEqual(before);
    expect(await syncsOf(entry.id)).toEqual([]);
  });

  it('approve or reject of an entry already in that status records the decision without a second status change', async () => {
    const { entry, review: r } = await queuedEntry(w);
    expectStatus(await setStatus(w, entry.id, 'COMPLETED'), 200);
    const res = await review.approve(w, r.id);
    expectStatus(res, 200);
    expect(res.body.entry.entryStatus).toBe('COMPLETED');
    expect(eventKinds(await events(w, entry.id)).slice(-2)).toEqual(['STATUS_CHANGED', 'REVIEW_APPROVED']);
  });

  it('404 for a review of another workspace; 403 without accounting.review', async () => {
    const { review: r } = await queuedEntry(w);
    const outsider = await reviewWorld(api);
    const t = outsider.token;
    expectErrorBody(await review.get(w, r.id, t), 404, 'NOT_FOUND');
    expectErrorBody(await review.assign(w, r.id, t), 404, 'NOT_FOUND');
    expectErrorBody(await review.approve(w, r.id, {}, t), 404, 'NOT_FOUND');
    expectErrorBody(await review.reject(w, r.id, 'no', t), 404, 'NOT_FOUND');
    expectErrorBody(await review.requestChanges(w, r.id, 'no', t), 404, 'NOT_FOUND');
    const lacking = await actor(api, { workspaceId: w.workspaceId, permissions: ['accounting.manage', 'entry.edit'] });
    expectErrorBody(await review.assign(w, r.id, lacking.token), 403, 'FORBIDDEN');
    expectErrorBody(await review.approve(w, r.id, {}, lacking.token), 403, 'FORBIDDEN');
    expectErrorBody(await review.assign(w, '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    expect((await review.get(w, r.id)).body.status).toBe('QUEUED');
  });
});

describe('batch approve and reject', () => {
  it('processes each review on its own and reports per-item results: partial failure keeps the successes', async () => {
    const category = await createCategory(w);
    const a = await queuedEntry(w);
    const b = await queuedEntry(w);
    const decided = await queuedEntry(w);
    await review.reject(w, decided.review.id);
    const outsider = await reviewWorld(api);
    const foreign = await queuedEntry(outsider);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const ids = [a.review.id, decided.review.id, foreign.review.id, b.review.id, unknown];
    const res = await api.post('/accounting/reviews/batch/approve', { reviewIds: ids, categoryId: category.id }, { token: w.token });
    expectStatus(res, 200);
    expect(res.body.succeeded).toBe(2);
    expect(res.body.failed).toBe(3);
    expect(res.body.results.map((x: any) => [x.reviewId, x.success])).toEqual([
      [a.review.id, true],
      [decided.review.id, false],
      [foreign.review.id, false],
      [b.review.id, true],
      [unknown, false],
    ]);
    expect(res.body.results[0]).toEqual({ reviewId: a.review.id, success: true });
    expect(res.body.results[1].error).toMatch(/REJECTED/);
    expect(res.body.results[2].error).toMatch(/not found/i);
    for (const x of [a, b]) {
      expect((await review.get(w, x.review.id)).body).toMatchObject({ status: 'APPROVED', categoryId: category.id });
      expect((await getEntry(w, x.entry.id)).entryStatus).toBe('COMPLETED');
      expect(await syncsOf(x.entry.id)).toHaveLength(1);
    }
    expect((await reviewsOf(foreign.entry.id))[0].status).toBe('QUEUED');
  });

  it('a bad categoryId fails every item with its message (and approves none)', async () => {
    const a = await queuedEntry(w);
    const res = await api.post(
      '/accounting/reviews/batch/approve',
      { reviewIds: [a.review.id], categoryId: '00000000-0000-4000-8000-000000000000' },
      { token: w.token },
    );
    expect(res.body).toMatchObject({ succeeded: 0, failed: 1 });
    expect(res.body.results[0].error).toMatch(/categoryId/);
    expect((await review.get(w, a.review.id)).body.status).toBe('QUEUED');
  });

  it('batch reject: the notes become each entry’s reason', async () => {
    const a = await queuedEntry(w);
    const b = await queuedEntry(w);
    const res = await api.post(
      '/accounting/reviews/batch/reject',
      { reviewIds: [a.review.id, b.review.id], notes: 'Out of policy' },
      { token: w.token },
    );
    expect(res.body).toEqual({
      results: [
        { reviewId: a.review.id, success: true },
        { reviewId: b.review.id, success: true },
      ],
      succeeded: 2,
      failed: 0,
    });
    expect(await getEntry(w, b.entry.id)).toMatchObject({ entryStatus: 'REJECTED', statusReason: 'Out of policy' });
  });

  it('refuses more than 100 ids, none, a bad id, and a reject without notes (400)', async () => {
    const many = Array.from({ length: 101 }, () => '00000000-0000-4000-8000-000000000000');
    expectErrorBody(await api.post('/accounting/reviews/batch/approve', { reviewIds: many }, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.post('/accounting/reviews/batch/approve', { reviewIds: [] }, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.post('/accounting/reviews/batch/approve', { reviewIds: ['x'] }, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.post('/accounting/reviews/batch/reject', { reviewIds: [many[0]] }, { token: w.token }), 400, 'BAD_REQUEST');
    const hundred = await api.post('/accounting/reviews/batch/approve', { reviewIds: many.slice(0, 100) }, { token: w.token });
    expect(hundred.body).toMatchObject({ succeeded: 0, failed: 100 });
    const lacking = await actor(api, { workspaceId: w.workspaceId, permissions: ['accounting.manage'] });
    expectErrorBody(
      await api.post('/accounting/reviews/batch/approve', { reviewIds: [many[0]] }, { token: lacking.token }),
      403,
      'FORBIDDEN',
    );
  });
});

describe('concurrency', () => {
  it('parallel approvals of one review: exactly one succeeds, one decision event, one sync record', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const { entry, review: r } = await queuedEntry(w);
      const results = await Promise.all(Array.from({ length: 6 }, () => review.approve(w, r.id)));
      expect(results.map((x) => x.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      for (const x of results.filter((y) => y.status === 409)) expectErrorBody(x, 409, 'CONFLICT');
      const kinds = eventKinds(await events(w, entry.id));
      expect(kinds.filter((k) => k === 'REVIEW_APPROVED')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'STATUS_CHANGED')).toHaveLength(2); // → UNDER_REVIEW, → COMPLETED
      expect(await syncsOf(entry.id)).toHaveLength(1);
      expect((await api.get(`/entries/${entry.id}/events/verify`, { token: w.token })).body.valid).toBe(true);
    }
  });

  it('approve racing reject on one review: one wins, the entry matches the winner', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const { entry, review: r } = await queuedEntry(w);
      const [approved, rejected] = await Promise.all([review.approve(w, r.id), review.reject(w, r.id)]);
      expect([approved.status, rejected.status].sort()).toEqual([200, 409]);
      const final = (await review.get(w, r.id)).body.status;
      expect((await getEntry(w, entry.id)).entryStatus).toBe(final === 'APPROVED' ? 'COMPLETED' : 'REJECTED');
    }
  });

  it('an edit racing a request for changes never leaves two open reviews', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const { entry, review: r } = await queuedEntry(w);
      await Promise.all([
        review.requestChanges(w, r.id),
        api.patch(`/entries/${entry.id}`, { description: `edit ${trial}` }, { token: w.token }),
      ]);
      const rows = await reviewsOf(entry.id);
      expect(rows).toHaveLength(1);
      const status = (await getEntry(w, entry.id)).entryStatus;
      expect([
        ['QUEUED', 'UNDER_REVIEW'],
        ['CHANGES_REQUESTED', 'PENDING'],
      ]).toContainEqual([rows[0].status, status]);
    }
  });
});
