import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { ledger, type EntryRow, type EventActor } from '../../entries/index.js';
import { intArrayLiteral } from '../pg-arrays.js';
import { publishMany } from '../../webhooks/index.js';
import { presentReviews, type ReviewRow } from './review-rows.js';

/**
 * How reviews enter the queue (CONTRACT §8 "create / auto-queue / backfill" and "entry edited"):
 * each queued review records REVIEW_QUEUED on its entry, and a PENDING entry becomes UNDER_REVIEW.
 */

/** Records REVIEW_QUEUED for each review, then moves the PENDING ones among their entries to UNDER_REVIEW. */
export async function announceQueued(tx: Transaction, reviews: ReviewRow[], actor: EventActor, data: Record<string, unknown> = {}) {
  if (reviews.length === 0) return;
  // recordEvents appends at most one event per entry per call: an entry queued for two connections takes two rounds
  const rounds: ReviewRow[][] = [];
  const seen = new Map<number, number>();
  for (const review of reviews) {
    const round = seen.get(review.entry_id) ?? 0;
    seen.set(review.entry_id, round + 1);
    (rounds[round] ??= []).push(review);
  }
  for (const round of rounds) {
    await ledger.recordEvents(
      tx,
      round.map((r) => ({
        entry: { id: r.entry_id, workspace_id: r.workspace_id },
        kind: 'REVIEW_QUEUED' as const,
        data: { reviewId: r.id, connectionId: r.connection_id, ...data },
      })),
      actor,
    );
  }
  await moveUnderReview(tx, [...seen.keys()], actor);
  await publishMany(
    tx,
    (await presentReviews(reviews, tx)).map((object) => ({ workspaceId: reviews[0].workspace_id, type: 'review.queued', object })),
  );
}

/** PENDING → UNDER_REVIEW through the ledger core (status table, event, reactions), entries locked in id order. */
async function moveUnderReview(tx: Transaction, entryIds: number[], actor: EventActor): Promise<void> {
  const entries = await ledger.lockMany(tx, entryIds);
  for (const entry of entries) {
    if (entry.entry_status === 'PENDING') await ledger.setStatus(tx, entry, 'UNDER_REVIEW', null, actor);
  }
}

/**
 * SQL (boolean) for the ledger core's create statement: whether a new entry of workspace `ws` in project `project`
 * (SQL expressions) gets a review from queueReviewsForNewEntries — the connections that statement joins.
 * False spares a create the queueing statement.
 */
export const reviewsDueSql = (ws: string, project: string) =>
  `EXISTS (SELECT 1 FROM accounting_connections c
            WHERE c.workspace_id = ${ws} AND c.is_active AND c.require_review
              AND (cardinality(c.project_ids) = 0 OR ${project} = ANY (c.project_ids)))`;

/**
 * On new entries (server/domains/reactions.ts): a QUEUED review for every active connection that requires review and
 * covers the new entry's project (`projectIds` empty = every project), in one statement.
 */
export async function queueReviewsForNewEntries(tx: Transaction, created: EntryRow[], actor: EventActor): Promise<boolean> {
  if (created.length === 0) return false;
  const now = clock.now();
  const reviews = await db().query<ReviewRow>(
    `INSERT INTO accounting_reviews (workspace_id, entry_id, connection_id, status, created_at, updated_at)
     SELECT e.workspace_id, e.id, c.id, 'QUEUED', :now, :now
       FROM entries e
       JOIN accounting_connections c ON c.workspace_id = e.workspace_id
      WHERE e.id = ANY (CAST(:ids AS bigint[])) AND e.entry_status <> 'VOIDED'
        AND c.is_active AND c.require_review
        AND (cardinality(c.project_ids) = 0 OR e.project_id = ANY (c.project_ids))
      ORDER BY e.id, c.created_at, c.id
     ON CONFLICT DO NOTHING
     RETURNING *`,
    { replacements: { ids: intArrayLiteral(created.map((e) => e.id)), now }, type: QueryTypes.SELECT, transaction: tx },
  );
  await announceQueued(tx, reviews, actor);
  return reviews.length > 0;
}

/**
 * CONTRACT §8 "entry edited": the latest review of each connection that is CHANGES_REQUESTED goes back in
 * the queue, unless one is open already (REVIEW_QUEUED and the move UNDER_REVIEW by announceQueued;
 * entry-changes.ts). The UPDATE (replacements :entryId, :now), returning `returning` of `r`.
 */
export const requeueAfterEditSql = (returning: string): string => `
  WITH latest AS (
    SELECT DISTINCT ON (connection_id) id, connection_id, status
      FROM accounting_reviews WHERE entry_id = :entryId
     ORDER BY connection_id, created_at DESC, id DESC
  )
  UPDATE accounting_reviews r SET status = 'QUEUED', decided_at = NULL, updated_at = :now
    FROM latest
   WHERE r.id = latest.id AND latest.status = 'CHANGES_REQUESTED'
     AND NOT EXISTS (
       SELECT 1 FROM accounting_reviews o
        WHERE o.entry_id = :entryId AND o.connection_id IS NOT DISTINCT FROM latest.connection_id
          AND o.status IN ('QUEUED', 'IN_REVIEW'))
  RETURNING r.${returning}`;

/**
 * CONTRACT §8: when its entry becomes VOIDED or CANCELLED (void, correction, full refund, status
 * change, webhook), every open review of it (QUEUED, IN_REVIEW, CHANGES_REQUESTED) becomes
 * CANCELLED in the same transaction, each with REVIEW_CANCELLED on the entry (entry-changes.ts).
 * The UPDATE (replacements :entryId, :now), returning `returning`.
 */
export const cancelOpenReviewsSql = (returning: string): string => `
  UPDATE accounting_reviews SET status = 'CANCELLED', decided_at = :now, updated_at = :now
   WHERE entry_id = :entryId AND status IN ('QUEUED', 'IN_REVIEW', 'CHANGES_REQUESTED')
   RETURNING ${returning}`;

/** REVIEW_CANCELLED for each review cancelled with its entry, in id order. */
export async function announceCancelled(tx: Transaction, entry: EntryRow, reviews: ReviewRow[], actor: EventActor): Promise<void> {
  reviews.sort((a, b) => a.id.localeCompare(b.id));
  for (const review of reviews) {
    await ledger.recordEvent(
      tx,
      entry,
      'REVIEW_CANCELLED',
      { reviewId: review.id, connectionId: review.connection_id, cause: entry.entry_status },
      actor,
    );
  }
}
