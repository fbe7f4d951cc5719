import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import type { EntryRow, EventActor } from '../entries/index.js';
import { announceCancelled, announceQueued, cancelOpenReviewsSql, requeueAfterEditSql } from './reviews/review-queue.js';
import type { ReviewRow } from './reviews/review-rows.js';
import { announceStale, changeSource, markStaleSql } from './sync/stale-on-change.js';
import type { SyncRow } from './sync/sync-rows.js';

/**
 * What a change of an entry does to its reviews and sync records, each in ONE statement for the usual
 * entry that has neither (issue 23: one round trip less per edit and per void). The rows changed are
 * read back, and their events written, only when there are any.
 */

type Changed = { reviews: string[]; syncs: string[] };

/**
 * An edit: the latest review of each connection that is CHANGES_REQUESTED goes back in the queue (unless
 * one is open already) with REVIEW_QUEUED, and a PENDING entry moves UNDER_REVIEW (CONTRACT §8 "entry
 * edited"); every SYNCED copy becomes STALE (stale-on-change.ts). True when a review was re-queued (the
 * entry's status may have moved).
 */
export async function afterEntryEdited(tx: Transaction, after: EntryRow, actor: EventActor): Promise<boolean> {
  const changed = await runChange(tx, after, actor, `WITH reviews AS (${requeueAfterEditSql('id')}), syncs AS (${markStaleSql('id')})`);
  if (changed.reviews.length > 0)
    await announceQueued(tx, await rowsOf<ReviewRow>(tx, 'accounting_reviews', changed.reviews), actor, { requeued: true });
  if (changed.syncs.length > 0) await announceStale(tx, await rowsOf<SyncRow>(tx, 'accounting_syncs', changed.syncs), 'EDITED', actor);
  return changed.reviews.length > 0;
}

/**
 * The entry became VOIDED or CANCELLED: its open reviews are CANCELLED with REVIEW_CANCELLED (CONTRACT §8),
 * and on a void its SYNCED copies become STALE (a push then voids them externally, CONTRACT §9).
 */
export async function afterEntryClosed(tx: Transaction, after: EntryRow, actor: EventActor): Promise<void> {
  const voided = after.entry_status === 'VOIDED';
  const changed = await runChange(
    tx,
    after,
    actor,
    `WITH reviews AS (${cancelOpenReviewsSql('id')}), syncs AS (${voided ? markStaleSql('id') : 'SELECT NULL::uuid AS id WHERE false'})`,
  );
  if (changed.reviews.length > 0)
    await announceCancelled(tx, after, await rowsOf<ReviewRow>(tx, 'accounting_reviews', changed.reviews), actor);
  if (changed.syncs.length > 0) await announceStale(tx, await rowsOf<SyncRow>(tx, 'accounting_syncs', changed.syncs), 'VOIDED', actor);
}

/** Runs `ctes` (which define `reviews` and `syncs`, each returning the ids it changed) and returns those ids. */
async function runChange(tx: Transaction, after: EntryRow, actor: EventActor, ctes: string): Promise<Changed> {
  const [changed] = await db().query<Changed>(
    `${ctes} SELECT ARRAY(SELECT id::text FROM reviews) AS reviews, ARRAY(SELECT id::text FROM syncs) AS syncs`,
    { replacements: { entryId: after.id, now: clock.now(), source: changeSource(actor) }, type: QueryTypes.SELECT, transaction: tx },
  );
  return changed;
}

function rowsOf<T extends object>(tx: Transaction, table: 'accounting_reviews' | 'accounting_syncs', ids: string[]): Promise<T[]> {
  return db().query<T>(`SELECT * FROM ${table} WHERE id IN (:ids) ORDER BY id`, {
    replacements: { ids },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
}
