import { transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { conflict } from '../../../lib/errors.js';
import { lockEntry } from '../../entries/index.js';
import type { EventActor } from '../../entries/index.js';
import { loadConnection } from '../connections/connection-rows.js';
import { applyExternal } from './apply-external.js';
import { runPush } from './push.js';
import { recordSyncEvent } from './sync-events.js';
import { lockOrCreateSync, lockSyncSlot, updateSync, type SyncRow } from './sync-rows.js';
import { providerFor } from '../providers/registry.js';

/**
 * resolve-conflict (CONTRACT §9), on a record in CONFLICT (else 409):
 * - KEEP_LOCAL: push the local entry over the external version in the snapshot → SYNCED or FAILED;
 * - KEEP_EXTERNAL: apply the snapshot to the local entry → SYNCED (409 with nothing changed
 *   when the entry rules refuse it, e.g. a closed period).
 */
export async function keepLocal(sync: SyncRow, who: EventActor): Promise<SyncRow> {
  const outcome = await runPush({ connectionId: sync.connection_id, entryId: sync.entry_id, who, mode: 'KEEP_LOCAL' });
  return outcome.sync!;
}

export async function keepExternal(sync: SyncRow, who: EventActor): Promise<SyncRow> {
  const connection = await loadConnection(null, sync.connection_id);
  const referenceMaxLength = connection.provider_type === 'MANUAL' ? undefined : safeReferenceLimit(connection);
  return transaction(async (tx) => {
    await lockSyncSlot(tx, sync.connection_id, sync.entry_id);
    const entry = await lockEntry(null, sync.entry_id, tx);
    const now = clock.now();
    const row = await lockOrCreateSync(tx, {
      workspaceId: sync.workspace_id,
      connectionId: sync.connection_id,
      entryId: sync.entry_id,
      now,
    });
    if (row.status !== 'CONFLICT') throw conflict(`Only a record in CONFLICT can be resolved; this one is ${row.status}`);
    const snapshot = row.external_snapshot;
    if (!snapshot) throw conflict('The conflict has no external snapshot to keep; pull again');
    await applyExternal(
      tx,
      entry,
      snapshot,
      who,
      { source: 'KEEP_EXTERNAL', syncId: row.id, connectionId: row.connection_id, externalVersion: snapshot.version },
      referenceMaxLength,
    );
    const updated = await updateSync(
      tx,
      row,
      { status: 'SYNCED', external_version: snapshot.version, external_snapshot: null, last_error: null, synced_at: now },
      now,
    );
    await recordSyncEvent(
      tx,
      updated,
      'SYNC_RESOLVED',
      { resolution: 'KEEP_EXTERNAL', status: 'SYNCED', externalVersion: snapshot.version },
      who,
    );
    return updated;
  });
}

function safeReferenceLimit(connection: Parameters<typeof providerFor>[0]): number | undefined {
  try {
    return providerFor(connection).referenceMaxLength;
  } catch {
    return undefined;
  }
}

/**
 * retry (CONTRACT §9): FAILED and STALE push again; CONFLICT re-reads the external record and
 * pushes only when it has not changed since our last sync. `success` = the record ended SYNCED.
 */
export async function retrySync(sync: SyncRow, who: EventActor): Promise<boolean> {
  const outcome = await runPush({ connectionId: sync.connection_id, entryId: sync.entry_id, who, mode: 'RETRY' });
  return outcome.sync?.status === 'SYNCED';
}
