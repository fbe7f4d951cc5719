import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../../server/db/database.js';
import { events } from '../../support/entries.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { reviewsOf } from '../helpers.js';
import { queuedEntry, reviewWorld, type ReviewWorld } from '../../support/factories/index.js';
import { eventKinds, review } from './review-support.js';

/**
 * CONTRACT §8: when its entry becomes VOIDED or CANCELLED (void, correction, full refund, status
 * change, webhook), every open review of it becomes CANCELLED in the same transaction, with
 * REVIEW_CANCELLED; a CANCELLED review accepts no operation (409).
 */
let api: Api;
let w: ReviewWorld;
beforeAll(async () => {
  api = await startServer();
  w = await reviewWorld(api);
});

const post = (path: string, body: unknown) => api.post(path, body, { token: w.token });

async function expectCancelled(entryId: number, reviewId: string) {
  const [row] = await reviewsOf(entryId);
  expect(row).toMatchObject({ id: reviewId, status: 'CANCELLED' });
  expect(row.decided_at).not.toBeNull();
  const history = await events(w, entryId);
  const cancelled = history.filter((e) => e.kind === 'REVIEW_CANCELLED');
  expect(cancelled).toHaveLength(1);
  expect(cancelled[0].data).toMatchObject({ reviewId, connectionId: w.connection.id });
  expectErrorBody(await review.approve(w, reviewId), 409, 'CONFLICT');
  expectErrorBody(await review.assign(w, reviewId), 409, 'CONFLICT');
  const listed = await api.get('/accounting/reviews', { token: w.token, query: { workspaceId: w.workspaceId, entryId } });
  expect(listed.body.items[0].status).toBe('CANCELLED');
}

describe('open reviews of an entry that leaves the books are CANCELLED', () => {
  it('on void', async () => {
    const { entry, review: r } = await queuedEntry(w);
    expect((await post(`/entries/${entry.id}/void`, { reason: 'duplicate' })).status).toBe(200);
    await expectCancelled(entry.id, r.id);
    expect(eventKinds(await events(w, entry.id)).slice(-2)).toEqual(['VOIDED', 'REVIEW_CANCELLED']);
  });

  it('with a SYNCED copy: a void cancels the review and makes the copy STALE, a CANCELLED status only cancels (entry-changes.ts)', async () => {
    const copyOf = async (entryId: number) => {
      const [sync] = await db().query<{ id: string }>(
        `INSERT INTO accounting_syncs (workspace_id, connection_id, entry_id, status, external_id, synced_at)
         VALUES ($1, $2, $3, 'SYNCED', $4, now()) RETURNING id`,
        { bind: [w.workspaceId, w.connection.id, entryId, `ext-${entryId}`], type: QueryTypes.SELECT },
      );
      return async () =>
        (
          await db().query<{ status: string }>('SELECT status FROM accounting_syncs WHERE id = $1', {
            bind: [sync.id],
            type: QueryTypes.SELECT,
          })
        )[0].status;
    };
    const voided = await queuedEntry(w);
    const voidedCopy = await copyOf(voided.entry.id);
    expect((await post(`/entries/${voided.entry.id}/void`, { reason: 'duplicate' })).status).toBe(200);
    await expectCancelled(voided.entry.id, voided.review.id);
    expect(await voidedCopy()).toBe('STALE');
    const history = await events(w, voided.entry.id);
    expect(eventKinds(history).slice(-3)).toEqual(['VOIDED', 'REVIEW_CANCELLED', 'SYNC_STALE']);
    expect(history.at(-1).data).toMatchObject({ cause: 'VOIDED' });
    expect((await api.get(`/entries/${voided.entry.id}/events/verify`, { token: w.token })).body.valid).toBe(true);

    const cancelled = await queuedEntry(w);
    const cancelledCopy = await copyOf(cancelled.entry.id);
    const res = await api.patch(`/entries/${cancelled.entry.id}/status`, { status: 'CANCELLED', reason: 'withdrawn' }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    await expectCancelled(cancelled.entry.id, cancelled.review.id);
    expect(await cancelledCopy()).toBe('SYNCED');
  });

  it('on a status change to CANCELLED, and an IN_REVIEW review too', async () => {
    const { entry, review: r } = await queuedEntry(w);
    expect((await review.assign(w, r.id)).status).toBe(200);
    expect((await api.patch(`/entries/${entry.id}/status`, { status: 'CANCELLED', reason: 'withdrawn' }, { token: w.token })).status).toBe(
      200,
    );
    await expectCancelled(entry.id, r.id);
  });

  it('on a correction (the original is voided; its replacement gets a review of its own)', async () => {
    const { entry, review: r } = await queuedEntry(w);
    const replacement = await post(`/entries/${entry.id}/correct`, { reason: 'typo', amountCents: 1234 });
    expect(replacement.status, replacement.text).toBe(200);
    await expectCancelled(entry.id, r.id);
    expect((await reviewsOf(replacement.body.id)).map((x) => x.status)).toEqual(['QUEUED']);
  });

  it('on a full refund of the original', async () => {
    const { entry, review: r } = await queuedEntry(w, { entryType: 'INCOME', amountCents: 500 });
    expect((await post(`/entries/${entry.id}/refund`, { amountCents: 500 })).status).toBe(200);
    await expectCancelled(entry.id, r.id);
  });

  it('a decided review stays as it was; a partial refund cancels nothing', async () => {
    const { entry, review: r } = await queuedEntry(w, { entryType: 'INCOME', amountCents: 500 });
    expect((await review.approve(w, r.id)).status).toBe(200);
    expect((await post(`/entries/${entry.id}/refund`, { amountCents: 100 })).status).toBe(200);
    expect((await post(`/entries/${entry.id}/void`, { reason: 'gone' })).status).toBe(200);
    const [row] = await reviewsOf(entry.id);
    expect(row.status).toBe('APPROVED');
    expect(eventKinds(await events(w, entry.id))).not.toContain('REVIEW_CANCELLED');
  });
});
