import type { Transaction } from '../../db/database.js';
import { ledger, type EntryRow, type EventActor } from '../entries/index.js';

export type EntryInMatch = { entryId: number; matchId: string };

/**
 * Sets or clears `isReconciled` of the entries of matches through the ledger core, set-based and
 * inside the caller's transaction: the core writes reconciledAt/reconciledBy and records
 * RECONCILED / UNRECONCILED with `data.matchId`. The entries are locked here in id order, unless the caller
 * passes the rows it locked already in this transaction (through the core) and has not changed since.
 */
export async function reconcileEntries(
  tx: Transaction,
  items: EntryInMatch[],
  actor: EventActor,
  value: boolean,
  lockedRows?: EntryRow[],
): Promise<EntryRow[]> {
  if (items.length === 0) return [];
  const locked =
    lockedRows ??
    (await ledger.lockMany(
      tx,
      items.map((i) => i.entryId),
    ));
  const rows = new Map(locked.map((r) => [Number(r.id), r]));
  const inMatches = items.flatMap(({ entryId, matchId }) => {
    const row = rows.get(entryId);
    return row ? [{ row, matchId }] : [];
  });
  return ledger.setReconciledMany(tx, inMatches, value, actor);
}
