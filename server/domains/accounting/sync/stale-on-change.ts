import type { Transaction } from '../../../db/database.js';
import { recordSyncOutcome } from '../../../lib/metrics.js';
import type { EntryEffects, EventActor } from '../../entries/index.js';
import type { SyncRow } from './sync-rows.js';

/**
 * On an edit or a void (entry-changes.ts; CONTRACT §9 "local edit, void, correction: SYNCED → STALE"): inside the
 * entry's transaction (the entry row is locked), every SYNCED record of the entry becomes STALE
 * with a SYNC_STALE event. A correction voids the original, so it arrives here as VOIDED.
 *
 * A change that came from a connection's own provider — a pull, a KEEP_EXTERNAL, a webhook
 * (actor SYSTEM or WEBHOOK with the connection's id) — does not make that connection's copy
 * stale: it already holds the change. Other connections' copies do become STALE.
 */

/** The connection whose own provider made the change (its copy is not stale), or null. */
export const changeSource = (who: EventActor): string | null =>
  who.actorType === 'SYSTEM' || who.actorType === 'WEBHOOK' ? who.actorId : null;

/** The UPDATE of the entry's SYNCED copies to STALE (replacements :workspaceId, :entryId, :now, :source), returning `returning`. */
export const markStaleSql = (returning: string): string => `
  UPDATE accounting_syncs SET status = 'STALE', updated_at = :now
   WHERE workspace_id = :workspaceId AND entry_id = :entryId AND status = 'SYNCED' AND (CAST(:source AS text) IS NULL OR connection_id::text <> :source)
   RETURNING ${returning}`;

/** SYNC_STALE on the entry for each copy made STALE, in connection order (counted in the sync metrics once committed). */
export function staleEffects(tx: Transaction, rows: SyncRow[], change: 'EDITED' | 'VOIDED'): EntryEffects {
  if (rows.length === 0) return [];
  const ordered = [...rows].sort((a, b) => a.connection_id.localeCompare(b.connection_id));
  for (let i = 0; i < ordered.length; i++) tx.afterCommit(() => recordSyncOutcome('STALE'));
  return [
    {
      record: ordered.map((sync) => ({
        entry: { id: sync.entry_id, workspace_id: sync.workspace_id },
        kind: 'SYNC_STALE' as const,
        data: { syncId: sync.id, connectionId: sync.connection_id, cause: change },
      })),
    },
  ];
}
