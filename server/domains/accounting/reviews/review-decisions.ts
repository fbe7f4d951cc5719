import { transaction, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { conflict, presentError } from '../../../lib/errors.js';
import type { Actor } from '../../../lib/scope.js';
import { runtime } from '../../../runtime.js';
import type { BatchReviewResult, ReviewObject, ReviewStatus } from '../../../../shared/contracts/accounting.js';
import type { EntryStatus } from '../../../../shared/contracts/entries.js';
import { lockEntry, type EntryRow } from '../../entries/index.js';
import { byUser, ledger, type EventKind } from '../../entries/index.js';
import { assertActiveCategory } from '../categories/category-rows.js';
import { loadConnection } from '../connections/connection-rows.js';
import { runAfterApprovalPush } from './after-approval.js';
import { findReview, loadReview, OPEN_STATUSES, presentReview, updateReviewRow, type ReviewRow } from './review-rows.js';
import { publish } from '../../outbound-webhooks/index.js';
import { ensurePendingSync } from './sync-records.js';

/**
 * The decisions of CONTRACT §8 on an open (QUEUED or IN_REVIEW) review; anything else is a 409.
 *
 * Locking: the entry row first, then the review row (the order every review write uses), so
 * two parallel decisions on one review run one after the other and the second sees the first's
 * result (409). Every check runs before the first write; the review change, its REVIEW_* event
 * and the entry's status change commit together.
 */
type Locked = { tx: Transaction; review: ReviewRow; entry: EntryRow };

async function withOpenReview<T>(actor: Actor, id: string, doing: string, work: (l: Locked) => Promise<T>): Promise<T> {
  return transaction(async (tx) => {
    const seen = await loadReview(actor, id, tx);
    const entry = await lockEntry(null, seen.entry_id, tx);
    const review = (await findReview(id, tx, true))!;
    if (!OPEN_STATUSES.includes(review.status))
      throw conflict(`The review is ${review.status}; only a QUEUED or IN_REVIEW review can be ${doing}`);
    return work({ tx, review, entry });
  });
}

/**
 * The entry status a decision leads to must be writable by the ledger's one check (already there: no change): the
 * status table, and a closed period's totals (CONTRACT §7: a reject moves its entry out of the counted statuses).
 */
async function assertEntryCanBecome(l: Locked, to: EntryStatus): Promise<void> {
  if (l.entry.entry_status !== to) await ledger.assertWritable(l.tx, l.entry, { kind: 'status', to });
}

async function moveEntry(l: Locked, to: EntryStatus, reason: string | null, actor: Actor): Promise<EntryRow> {
  if (l.entry.entry_status === to) return l.entry;
  return ledger.setStatus(l.tx, l.entry, to, reason, byUser(actor));
}

async function decide(
  l: Locked,
  actor: Actor,
  status: ReviewStatus,
  kind: EventKind,
  changes: { notes?: string | null; category_id?: string | null },
): Promise<ReviewRow> {
  const decided = status === 'APPROVED' || status === 'REJECTED' || status === 'CHANGES_REQUESTED';
  const updated = await updateReviewRow(
    l.tx,
    l.review,
    { status, reviewer_id: actor.userId, decided_at: decided ? clock.now() : null, ...changes },
    clock.now(),
  );
  await ledger.recordEvent(
    l.tx,
    l.entry,
    kind,
    {
      reviewId: updated.id,
      connectionId: updated.connection_id,
      from: l.review.status,
      to: status,
      ...(decided ? { notes: updated.notes } : { reviewerId: actor.userId, previousReviewerId: l.review.reviewer_id }),
      ...(status === 'APPROVED' ? { categoryId: updated.category_id } : {}),
    },
    byUser(actor),
  );
  return updated;
}

/** The decision's outbound event (CONTRACT §15), in its transaction; returns the review. */
async function published(tx: Transaction, type: 'review.approved' | 'review.rejected' | 'review.changes_requested', review: ReviewObject) {
  await publish(tx, { workspaceId: review.entry.workspaceId, type, object: review });
  return review;
}

/** QUEUED or IN_REVIEW → IN_REVIEW, with the caller as reviewer; the entry is unchanged. */
export async function assignReview(actor: Actor, id: string): Promise<ReviewObject> {
  return withOpenReview(actor, id, 'assigned', async (l) => {
    const review = await decide(l, actor, 'IN_REVIEW', 'REVIEW_ASSIGNED', {});
    return presentReview(review, l.entry);
  });
}

/**
 * → APPROVED, entry → COMPLETED; `categoryId` must be an active category of the workspace (400).
 * MANUAL_PUSH: the PENDING sync record in the same transaction; AUTO_PUSH and BIDIRECTIONAL:
 * afterApprovalPush once the approval has committed; MANUAL: nothing more.
 */
export async function approveReview(actor: Actor, input: { id: string; categoryId?: string; notes?: string }): Promise<ReviewObject> {
  let pushAfterCommit = false;
  const result = await withOpenReview(actor, input.id, 'approved', async (l) => {
    if (input.categoryId) await assertActiveCategory(l.tx, l.review.workspace_id, input.categoryId);
    await assertEntryCanBecome(l, 'COMPLETED');
    const connection = l.review.connection_id ? await loadConnection(null, l.review.connection_id, l.tx) : null;
    const review = await decide(l, actor, 'APPROVED', 'REVIEW_APPROVED', {
      notes: input.notes ?? l.review.notes,
      // CONTRACT §16: the entry's own category is the default of an approval
      category_id: input.categoryId ?? l.review.category_id ?? l.entry.category_id,
    });
    const entry = await moveEntry(l, 'COMPLETED', null, actor);
    if (connection?.sync_mode === 'MANUAL_PUSH') {
      await ensurePendingSync(l.tx, { workspaceId: review.workspace_id, connectionId: connection.id, entryId: review.entry_id });
    }
    pushAfterCommit = connection?.sync_mode === 'AUTO_PUSH' || connection?.sync_mode === 'BIDIRECTIONAL';
    return published(l.tx, 'review.approved', presentReview(review, entry));
  });
  if (pushAfterCommit) await runAfterApprovalPush(result.id);
  return result;
}

/** → REJECTED, entry → REJECTED with the notes as its reason. */
export async function rejectReview(actor: Actor, input: { id: string; notes: string }): Promise<ReviewObject> {
  return withOpenReview(actor, input.id, 'rejected', async (l) => {
    await assertEntryCanBecome(l, 'REJECTED');
    const review = await decide(l, actor, 'REJECTED', 'REVIEW_REJECTED', { notes: input.notes });
    return published(l.tx, 'review.rejected', presentReview(review, await moveEntry(l, 'REJECTED', input.notes, actor)));
  });
}

/** → CHANGES_REQUESTED, entry → PENDING; the entry's next edit puts the review back in the queue. */
export async function requestChanges(actor: Actor, input: { id: string; notes: string }): Promise<ReviewObject> {
  return withOpenReview(actor, input.id, 'sent back for changes', async (l) => {
    await assertEntryCanBecome(l, 'PENDING');
    const review = await decide(l, actor, 'CHANGES_REQUESTED', 'REVIEW_CHANGES_REQUESTED', { notes: input.notes });
    return published(l.tx, 'review.changes_requested', presentReview(review, await moveEntry(l, 'PENDING', null, actor)));
  });
}

/** Each review in its own transaction: one refusal does not undo the others. */
async function batch(reviewIds: string[], decideOne: (id: string) => Promise<unknown>): Promise<BatchReviewResult> {
  const results: BatchReviewResult['results'] = [];
  for (const reviewId of reviewIds) {
    try {
      await decideOne(reviewId);
      results.push({ reviewId, success: true });
    } catch (err) {
      const presented = presentError(err);
      if (presented.status >= 500) runtime().logger.error({ err, reviewId }, 'batch review item failed');
      results.push({ reviewId, success: false, error: presented.body.message });
    }
  }
  const succeeded = results.filter((r) => r.success).length;
  return { results, succeeded, failed: results.length - succeeded };
}

export const batchApprove = (actor: Actor, input: { reviewIds: string[]; categoryId?: string; notes?: string }) =>
  batch(input.reviewIds, (id) => approveReview(actor, { id, categoryId: input.categoryId, notes: input.notes }));

export const batchReject = (actor: Actor, input: { reviewIds: string[]; notes: string }) =>
  batch(input.reviewIds, (id) => rejectReview(actor, { id, notes: input.notes }));
