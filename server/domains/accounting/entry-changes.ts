import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import type { EntryEffects, EntryRow, EventActor } from '../entries/index.js';
import { cancelledEffects, cancelOpenReviewsSql, queuedEffects, requeueAfterEditSql } from './reviews/review-queue.js';
import type { ReviewRow } from './reviews/review-rows.js';
import { changeSource, markStaleSql, staleEffects } from './sync/stale-on-change.js';
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
 * entry's status may have moved). Their events and the move are effects the ledger core applies.
 */
export async function afterEntryEdited(tx: Transaction, after: EntryRow, actor: EventActor): Promise<EntryEffects> {
  const changed = await runChange(tx, after, actor, `WITH reviews AS (${requeueAfterEditSql('id')}), syncs AS (${markStaleSql('id')})`);
  const requeued = changed.reviews.length > 0 ? await rowsOf<ReviewRow>(tx, 'accounting_reviews', after.workspace_id, changed.reviews) : [];
  const stale = changed.syncs.length > 0 ? await rowsOf<SyncRow>(tx, 'accounting_syncs', after.workspace_id, changed.syncs) : [];
  return [...queuedEffects(requeued, { requeued: true }), ...staleEffects(tx, stale, 'EDITED')];
}

/**
 * The entry became VOIDED or CANCELLED: its open reviews are CANCELLED with REVIEW_CANCELLED (CONTRACT §8),
 * and on a void its SYNCED copies become STALE (a push then voids them externally, CONTRACT §9); the events
 * are effects the ledger core records.
 */
export async function afterEntryClosed(tx: Transaction, after: EntryRow, actor: EventActor): Promise<EntryEffects> {
  const voided = after.entry_status === 'VOIDED';
  const changed = await runChange(
    tx,
    after,
    actor,
    `WITH reviews AS (${cancelOpenReviewsSql('id')}), syncs AS (${voided ? markStaleSql('id') : 'SELECT NULL::uuid AS id WHERE false'})`,
  );
  const cancelled =
    changed.reviews.length > 0 ? await rowsOf<ReviewRow>(tx, 'accounting_reviews', after.workspace_id, changed.reviews) : [];
  const stale = changed.syncs.length > 0 ? await rowsOf<SyncRow>(tx, 'accounting_syncs', after.workspace_id, changed.syncs) : [];
  return [...cancelledEffects(after, cancelled), ...staleEffects(tx, stale, 'VOIDED')];
}

/** Runs `ctes` (which define `reviews` and `syncs`, each returning the ids it changed) and returns those ids. */
async function runChange(tx: Transaction, after: EntryRow, actor: EventActor, ctes: string): Promise<Changed> {
  const [changed] = await db().query<Changed>(
    `${ctes} SELECT ARRAY(SELECT id::text FROM reviews) AS reviews, ARRAY(SELECT id::text FROM syncs) AS syncs`,
    {
      replacements: { workspaceId: after.workspace_id, entryId: after.id, now: clock.now(), source: changeSource(actor) },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return changed;
}

function rowsOf<T extends object>(
  tx: Transaction,
  table: 'accounting_reviews' | 'accounting_syncs',
  workspaceId: number,
  ids: string[],
): Promise<T[]> {
  return db().query<T>(`SELECT * FROM ${table} WHERE workspace_id = :ws AND id IN (:ids) ORDER BY id`, {
    replacements: { ws: workspaceId, ids },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
}
