import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import type { EntryEffects, EntryRow } from '../../entries/index.js';
import { intArrayLiteral } from '../pg-arrays.js';
import { presentReviews, type ReviewRow } from './review-rows.js';

/**
 * How reviews enter the queue (CONTRACT §8 "create / auto-queue / backfill" and "entry edited"):
 * each queued review records REVIEW_QUEUED on its entry, and a PENDING entry becomes UNDER_REVIEW. These return
 * what the ledger core is to do (its effects, DESIGN §2a), and the core does it: reviews never write an entry.
 */

/**
 * What queueing `reviews` asks of the ledger core, in this order: REVIEW_QUEUED on each review's entry; the PENDING
 * ones among those entries moved to UNDER_REVIEW (status table, event, reactions; locked in id order); review.queued,
 * built once the moves are made (the review embeds its entry, UNDER_REVIEW by then).
 */
export function queuedEffects(reviews: ReviewRow[], data: Record<string, unknown> = {}): EntryEffects {
  if (reviews.length === 0) return [];
  return [
    {
      record: reviews.map((r) => ({
        entry: { id: r.entry_id, workspace_id: r.workspace_id },
        kind: 'REVIEW_QUEUED' as const,
        data: { reviewId: r.id, connectionId: r.connection_id, ...data },
      })),
    },
    { underReview: [...new Set(reviews.map((r) => r.entry_id))] },
    {
      publish: async (tx) =>
        (await presentReviews(reviews, tx)).map((object) => ({ workspaceId: reviews[0].workspace_id, type: 'review.queued', object })),
    },
  ];
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
export async function queueReviewsForNewEntries(tx: Transaction, created: EntryRow[]): Promise<EntryEffects> {
  if (created.length === 0) return [];
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
  return queuedEffects(reviews);
}

/**
 * CONTRACT §8 "entry edited": the latest review of each connection that is CHANGES_REQUESTED goes back in
 * the queue, unless one is open already (REVIEW_QUEUED and the move UNDER_REVIEW: queuedEffects;
 * entry-changes.ts). The UPDATE (replacements :workspaceId, :entryId, :now), returning `returning` of `r`.
 */
export const requeueAfterEditSql = (returning: string): string => `
  WITH latest AS (
    SELECT DISTINCT ON (connection_id) id, connection_id, status
      FROM accounting_reviews WHERE workspace_id = :workspaceId AND entry_id = :entryId
     ORDER BY connection_id, created_at DESC, id DESC
  )
  UPDATE accounting_reviews r SET status = 'QUEUED', decided_at = NULL, updated_at = :now
    FROM latest
   WHERE r.workspace_id = :workspaceId AND r.id = latest.id AND latest.status = 'CHANGES_REQUESTED'
     AND NOT EXISTS (
       SELECT 1 FROM accounting_reviews o
        WHERE o.workspace_id = :workspaceId AND o.entry_id = :entryId AND o.connection_id IS NOT DISTINCT FROM latest.connection_id
          AND o.status IN ('QUEUED', 'IN_REVIEW'))
  RETURNING r.${returning}`;

/**
 * CONTRACT §8: when its entry becomes VOIDED or CANCELLED (void, correction, full refund, status
 * change, webhook), every open review of it (QUEUED, IN_REVIEW, CHANGES_REQUESTED) becomes
 * CANCELLED in the same transaction, each with REVIEW_CANCELLED on the entry (entry-changes.ts).
 * The UPDATE (replacements :workspaceId, :entryId, :now), returning `returning`.
 */
export const cancelOpenReviewsSql = (returning: string): string => `
  UPDATE accounting_reviews SET status = 'CANCELLED', decided_at = :now, updated_at = :now
   WHERE workspace_id = :workspaceId AND entry_id = :entryId AND status IN ('QUEUED', 'IN_REVIEW', 'CHANGES_REQUESTED')
   RETURNING ${returning}`;

/** REVIEW_CANCELLED on the entry for each review cancelled with it, in review id order. */
export function cancelledEffects(entry: EntryRow, reviews: ReviewRow[]): EntryEffects {
  if (reviews.length === 0) return [];
  const ordered = [...reviews].sort((a, b) => a.id.localeCompare(b.id));
  return [
    {
      record: ordered.map((review) => ({
        entry,
        kind: 'REVIEW_CANCELLED' as const,
        data: { reviewId: review.id, connectionId: review.connection_id, cause: entry.entry_status },
      })),
    },
  ];
}
