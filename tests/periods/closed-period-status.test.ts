import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closePeriod,
  createEntry,
  type EntryWorld,
  queuedEntry,
  reviewWorld,
  type ReviewWorld,
  syncWorld,
  type SyncWorld,
} from '../support/factories/index.js';
import { events, getEntry, reopenPeriod, setStatus } from '../support/entries.js';
import { expectErrorBody, startServer, type Api, type ApiResponse } from '../support/http.js';
import { review } from '../accounting/reviews/review-support.js';
import { startEmulators, stopEmulators, type Emulators } from '../accounting/sync/helpers.js';

/**
 * Issue 28, hole 3 (CONTRACT §7 "A closed period's totals never move"): a status change of an entry dated in a
 * closed period that moves it into or out of the counted statuses (PENDING, UNDER_REVIEW, COMPLETED) is a 409 by
 * every route — PATCH status, review decisions, inbound accounting webhooks — and changes nothing; moves among
 * the counted statuses (a review approval, a request for changes) and reconciling stay allowed. The closed
 * period's report totals are the same before and after.
 */
let api: Api;
let e: Emulators;
beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
});
afterAll(() => stopEmulators(e));

const CLOSED = { from: '2025-07-01', to: '2025-09-30' };

async function summary(w: EntryWorld): Promise<any> {
  const res = await w.api.get('/reports/summary', { token: w.token, query: { workspaceId: w.workspaceId, ...CLOSED } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function state(w: EntryWorld, id: number) {
  return { entry: await getEntry(w, id), events: (await events(w, id)).length };
}

function hook(w: SyncWorld, body: Record<string, unknown>): Promise<ApiResponse> {
  return w.api.request('POST', `/webhooks/accounting/${w.connection.id}`, {
    rawBody: JSON.stringify({ eventId: `evt-${randomUUID()}`, ...body }),
    headers: { 'Content-Type': 'application/json' },
  });
}

describe('PATCH /entries/{id}/status on an entry dated in a closed period', () => {
  it('into or out of the counted statuses: 409, nothing changes, the totals stay; among them: allowed', async () => {
    const w = await syncWorld(api, 'MANUAL', e);
    const pending = await createEntry(w, { entryDate: '2025-08-10', amountCents: 311_774 });
    const rejected = await createEntry(w, { entryDate: '2025-08-11', amountCents: 5_000 });
    expect((await setStatus(w, rejected.id, 'REJECTED', 'not ours')).status).toBe(200);
    const underReview = await createEntry(w, { entryDate: '2025-08-12', amountCents: 7_000 });
    expect((await setStatus(w, underReview.id, 'UNDER_REVIEW')).status).toBe(200);
    const period = await closePeriod(api, w.token, w.workspaceId, CLOSED.from, CLOSED.to);
    const totals = await summary(w);
    expect(totals).toMatchObject({ totalExpenseCents: 318_774, entryCount: 2 });

    for (const [entry, to] of [
      [pending, 'CANCELLED'],
      [pending, 'REJECTED'],
      [underReview, 'CANCELLED'],
      [underReview, 'REJECTED'],
      [rejected, 'PENDING'],
    ] as const) {
      const before = await state(w, entry.id);
      const res = await setStatus(w, entry.id, to, to === 'PENDING' ? undefined : 'after the close');
      expectErrorBody(res, 409, 'CONFLICT');
      expect(res.body.message).toMatch(/closed accounting period/);
      expect(await state(w, entry.id)).toEqual(before);
    }
    expect(await summary(w)).toEqual(totals);

    // moves among the counted statuses do not move the totals: allowed
    expect((await setStatus(w, underReview.id, 'COMPLETED')).status).toBe(200);
    expect((await setStatus(w, pending.id, 'UNDER_REVIEW')).status).toBe(200);
    expect((await w.api.patch(`/entries/${pending.id}/reconcile`, { isReconciled: true }, { token: w.token })).status).toBe(200);
    expect(await summary(w)).toEqual(totals);

    // after a reopen the same changes go through
    await reopenPeriod(api, w.token, period.id);
    expect((await setStatus(w, pending.id, 'CANCELLED', 'after the reopen')).status).toBe(200);
    expect((await setStatus(w, rejected.id, 'PENDING')).status).toBe(200);
    expect(await summary(w)).toMatchObject({ totalExpenseCents: 12_000, entryCount: 2 });
  });
});

describe('inbound accounting webhooks on an entry dated in a closed period', () => {
  it('ENTRY_REJECTED and ENTRY_APPROVED (from REJECTED) are 409 and record nothing; ENTRY_APPROVED among counted is fine', async () => {
    const w = await syncWorld(api, 'GENERIC', e);
    const pending = await createEntry(w, { entryDate: '2025-08-10', amountCents: 311_774 });
    const rejected = await createEntry(w, { entryDate: '2025-08-11', amountCents: 5_000 });
    expect((await setStatus(w, rejected.id, 'REJECTED', 'not ours')).status).toBe(200);
    const other = await createEntry(w, { entryDate: '2025-08-12', amountCents: 7_000 });
    const period = await closePeriod(api, w.token, w.workspaceId, CLOSED.from, CLOSED.to);
    const totals = await summary(w);

    const eventId = `evt-${randomUUID()}`;
    const before = await state(w, pending.id);
    const refused = await w.api.request('POST', `/webhooks/accounting/${w.connection.id}`, {
      rawBody: JSON.stringify({ eventId, action: 'ENTRY_REJECTED', entryId: pending.id, reason: 'Rejected in books' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expectErrorBody(refused, 409, 'CONFLICT');
    expect(await state(w, pending.id)).toEqual(before);

    const beforeRejected = await state(w, rejected.id);
    expectErrorBody(await hook(w, { action: 'ENTRY_APPROVED', entryId: rejected.id }), 409, 'CONFLICT');
    expect(await state(w, rejected.id)).toEqual(beforeRejected);
    expect(await summary(w)).toEqual(totals);

    // PENDING → COMPLETED stays among the counted statuses
    const approved = await hook(w, { action: 'ENTRY_APPROVED', entryId: other.id });
    expect(approved.status, approved.text).toBe(200);
    expect(await getEntry(w, other.id)).toMatchObject({ entryStatus: 'COMPLETED' });
    expect(await summary(w)).toEqual(totals);

    // the refused eventId was not recorded: after a reopen the same event goes through
    await reopenPeriod(api, w.token, period.id);
    const again = await w.api.request('POST', `/webhooks/accounting/${w.connection.id}`, {
      rawBody: JSON.stringify({ eventId, action: 'ENTRY_REJECTED', entryId: pending.id, reason: 'Rejected in books' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(again.status, again.text).toBe(200);
    expect(await getEntry(w, pending.id)).toMatchObject({ entryStatus: 'REJECTED' });
  });
});

describe('review decisions on an entry dated in a closed period', () => {
  let w: ReviewWorld;
  beforeAll(async () => {
    w = await reviewWorld(api);
  });

  it('reject: 409, the review stays open and the entry UNDER_REVIEW; approve and request-changes are allowed', async () => {
    const toReject = await queuedEntry(w, { entryDate: '2025-08-10', amountCents: 311_774 });
    const toApprove = await queuedEntry(w, { entryDate: '2025-08-11', amountCents: 5_000 });
    const toSendBack = await queuedEntry(w, { entryDate: '2025-08-12', amountCents: 7_000 });
    const period = await closePeriod(api, w.token, w.workspaceId, CLOSED.from, CLOSED.to);
    const totals = await summary(w);

    const before = await state(w, toReject.entry.id);
    expectErrorBody(await review.reject(w, toReject.review.id, 'Not ours'), 409, 'CONFLICT');
    expect(await state(w, toReject.entry.id)).toEqual(before);
    expect((await review.get(w, toReject.review.id)).body.status).toBe('QUEUED');
    // the batch form refuses it the same way
    const batch = await w.api.post('/accounting/reviews/batch/reject', { reviewIds: [toReject.review.id], notes: 'x' }, { token: w.token });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body).toMatchObject({ succeeded: 0, failed: 1 });
    expect(await state(w, toReject.entry.id)).toEqual(before);

    expect((await review.approve(w, toApprove.review.id)).status).toBe(200);
    expect(await getEntry(w, toApprove.entry.id)).toMatchObject({ entryStatus: 'COMPLETED' });
    expect((await review.requestChanges(w, toSendBack.review.id)).status).toBe(200);
    expect(await getEntry(w, toSendBack.entry.id)).toMatchObject({ entryStatus: 'PENDING' });
    expect(await summary(w)).toEqual(totals);

    await reopenPeriod(api, w.token, period.id);
    expect((await review.reject(w, toReject.review.id, 'Not ours')).status).toBe(200);
    expect(await getEntry(w, toReject.entry.id)).toMatchObject({ entryStatus: 'REJECTED' });
  });
});
