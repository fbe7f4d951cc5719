import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
// PHASE 1: the entries domain has no public index.ts yet; this is the one place banking writes
// entries. Phase 2 replaces the body with ledger.setReconciled(tx, row, value, actor, { matchId }).
import { recordEvents, type EventActor } from '../entries/events.js';

export type EntryInMatch = { entryId: number; matchId: string };

/**
 * Sets `isReconciled` of the entries (with reconciledAt/reconciledBy, or clearing them) and records
 * RECONCILED / UNRECONCILED with `data.matchId`, set-based, inside the caller's transaction.
 * The caller has locked the entries (in id order). The ONE call to swap for the ledger core.
 */
export async function reconcileEntries(tx: Transaction, items: EntryInMatch[], actor: EventActor, value: boolean): Promise<void> {
  if (items.length === 0) return;
  const now = clock.now();
  const rows = await db().query<{ id: number; workspace_id: number }>(
    `UPDATE entries SET is_reconciled = $2, reconciled_at = CASE WHEN $2 THEN $3::timestamptz END,
            reconciled_by = CASE WHEN $2 THEN $4::uuid END, updated_at = $3
      WHERE id = ANY($1::bigint[]) RETURNING id, workspace_id`,
    {
      bind: [items.map((i) => i.entryId), value, now.toISOString(), actor.actorType === 'USER' ? actor.actorId : null],
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  const matchOf = new Map(items.map((i) => [i.entryId, i.matchId]));
  const kind = value ? 'RECONCILED' : 'UNRECONCILED';
  await recordEvents(
    tx,
    rows.map((r) => ({ entry: { id: Number(r.id), workspace_id: r.workspace_id }, kind, data: { matchId: matchOf.get(Number(r.id)) } })),
    actor,
  );
}
