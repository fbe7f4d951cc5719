import { recordSyncOutcome } from '../../../http/metrics.js';
import type { Transaction } from '../../../db/database.js';
import { ledger, type EventActor } from '../../entries/index.js';
import type { SyncRow } from './sync-rows.js';

export type SyncEventKind = 'SYNC_PUSHED' | 'SYNC_FAILED' | 'SYNC_STALE' | 'SYNC_CONFLICT' | 'SYNC_RESOLVED';

/** A SYNC_* event on the record's entry, naming the record and its connection. */
export function recordSyncEvent(tx: Transaction, sync: SyncRow, kind: SyncEventKind, data: Record<string, unknown>, who: EventActor) {
  tx.afterCommit(() => recordSyncOutcome(kind.replace(/^SYNC_/, '')));
  return ledger.recordEvent(
    tx,
    { id: sync.entry_id, workspace_id: sync.workspace_id },
    kind,
    { syncId: sync.id, connectionId: sync.connection_id, ...data },
    who,
  );
}

/** Events of a pull (and of changes a connection's provider caused): actor SYSTEM, the connection as actorId. */
export const fromConnection = (connectionId: string): EventActor => ({ actorType: 'SYSTEM', actorId: connectionId });
