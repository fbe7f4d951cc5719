import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import type { EntryRow, EventActor } from '../entries/index.js';
import { announceQueued } from './reviews/review-queue.js';
import type { ReviewRow } from './reviews/review-rows.js';
import { announceStale, changeSource, markStaleSql } from './sync/stale-on-change.js';
import type { SyncRow } from './sync/sync-rows.js';

/**
 * What an edit does to the entry's reviews and sync records, in ONE statement for the usual entry
 * that has neither (issue 23: one round trip less per edit):
 *
 * - CONTRACT §8 "entry edited": the latest review of each connection that is CHANGES_REQUESTED goes
 *   back in the queue (unless one is open already), with REVIEW_QUEUED; a PENDING entry moves UNDER_REVIEW;
 * - CONTRACT §9 "local edit: SYNCED → STALE": every SYNCED record becomes STALE with SYNC_STALE, except
 *   the copy of the connection whose own provider made the change (actor SYSTEM or WEBHOOK with its id).
 *
 * The rows changed are read back (and announced) only when there are any. Returns whether a review was
 * re-queued (the entry's status may have moved).
 */
export async function afterEntryEdited(tx: Transaction, after: EntryRow, actor: EventActor): Promise<boolean> {
  const [changed] = await db().query<{ reviews: string[]; syncs: string[] }>(
    `WITH latest AS (
       SELECT DISTINCT ON (connection_id) id, connection_id, status
         FROM accounting_reviews WHERE entry_id = :entryId
        ORDER BY connection_id, created_at DESC, id DESC
     ), requeued AS (
       UPDATE accounting_reviews r SET status = 'QUEUED', decided_at = NULL, updated_at = :now
         FROM latest
        WHERE r.id = latest.id AND latest.status = 'CHANGES_REQUESTED'
          AND NOT EXISTS (
            SELECT 1 FROM accounting_reviews o
             WHERE o.entry_id = :entryId AND o.connection_id IS NOT DISTINCT FROM latest.connection_id
               AND o.status IN ('QUEUED', 'IN_REVIEW'))
       RETURNING r.id
     ), stale AS (${markStaleSql('id')})
     SELECT ARRAY(SELECT id::text FROM requeued) AS reviews, ARRAY(SELECT id::text FROM stale) AS syncs`,
    { replacements: { entryId: after.id, now: clock.now(), source: changeSource(actor) }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (changed.reviews.length > 0) {
    const reviews = await rowsOf<ReviewRow>(tx, 'accounting_reviews', changed.reviews);
    await announceQueued(tx, reviews, actor, { requeued: true });
  }
  if (changed.syncs.length > 0) {
    await announceStale(tx, await rowsOf<SyncRow>(tx, 'accounting_syncs', changed.syncs), 'EDITED', actor);
  }
  return changed.reviews.length > 0;
}

function rowsOf<T extends object>(tx: Transaction, table: 'accounting_reviews' | 'accounting_syncs', ids: string[]): Promise<T[]> {
  return db().query<T>(`SELECT * FROM ${table} WHERE id IN (:ids) ORDER BY id`, {
    replacements: { ids },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
}
