import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { AppError, conflict } from '../../../lib/errors.js';
import { lockEntry } from '../../entries/index.js';
import type { EventActor } from '../../entries/index.js';
import { loadConnection, type ConnectionRow } from '../connections/connection-rows.js';
import type { AccountingProvider, ExternalEntry } from '../providers/provider.js';
import { ProviderError } from '../providers/provider-error.js';
import { providerFor } from '../providers/registry.js';
import type { PullResult } from '../../../../shared/contracts/sync.js';
import { applyExternal } from './apply-external.js';
import { fromConnection, recordSyncEvent } from './sync-events.js';
import { lockOrCreateSync, lockSyncSlot, updateSync, type SyncRow } from './sync-rows.js';

/**
 * Pull (CONTRACT §9): the provider's records changed since `since` (default: the connection's
 * lastPulledAt), each matched to a sync record of this connection by externalId and handled in
 * its own transaction under the record's sync lock:
 * - version unchanged (our own push echoing back): nothing;
 * - SYNCED: the local entry takes the external values (ENTRY_UPDATED, actor SYSTEM) → SYNCED;
 *   when the entry rules refuse them (closed period, voided entry …) → CONFLICT instead;
 * - STALE, or FAILED with an external record (a local change not yet pushed): → CONFLICT, snapshot kept;
 * - CONFLICT: the snapshot is replaced by the newer external record.
 * Records the provider reports that no sync record names are counted in `pulled` and ignored.
 */

type Handled = 'UPDATED' | 'CONFLICT' | 'UNCHANGED' | 'IGNORED';

/** A provider failure on a connection-level call is refused as 409, its message naming the cause. */
export async function providerCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ProviderError) throw conflict(`${what} failed: ${err.message}`);
    throw err;
  }
}

export async function activeProvider(connectionId: string): Promise<{ connection: ConnectionRow; provider: AccountingProvider }> {
  const connection = await loadConnection(null, connectionId);
  if (!connection.is_active) throw conflict('The connection is inactive');
  const provider = await providerCall('The provider', async () => providerFor(connection));
  await provider.assertTarget();
  return { connection, provider };
}

export async function pullConnection(connectionId: string, opts: { since?: Date } = {}): Promise<PullResult> {
  const { connection, provider } = await activeProvider(connectionId);
  const startedAt = clock.now();
  const externals = await providerCall('Listing external changes', () =>
    provider.listChangedSince(opts.since ?? connection.last_pulled_at),
  );
  const result: PullResult = { pulled: externals.length, updated: 0, conflicts: 0 };
  for (const external of externals) {
    const handled = await handleOne(connection, provider, external);
    if (handled === 'UPDATED') result.updated++;
    if (handled === 'CONFLICT') result.conflicts++;
  }
  await db().query('UPDATE accounting_connections SET last_pulled_at = GREATEST(COALESCE(last_pulled_at, :at), :at) WHERE id = :id', {
    replacements: { id: connectionId, at: startedAt },
  });
  return result;
}

async function findByExternalId(connectionId: string, externalId: string): Promise<SyncRow | null> {
  const rows = await db().query<SyncRow>(
    'SELECT * FROM accounting_syncs WHERE connection_id = :connectionId AND external_id = :externalId',
    {
      replacements: { connectionId, externalId },
      type: QueryTypes.SELECT,
    },
  );
  return rows[0] ?? null;
}

async function handleOne(connection: ConnectionRow, provider: AccountingProvider, external: ExternalEntry): Promise<Handled> {
  const found = await findByExternalId(connection.id, external.externalId);
  if (!found) return 'IGNORED';
  return transaction(async (tx) => {
    await lockSyncSlot(tx, connection.id, found.entry_id);
    const entry = await lockEntry(null, found.entry_id, tx);
    const now = clock.now();
    const sync = await lockOrCreateSync(tx, { workspaceId: found.workspace_id, connectionId: connection.id, entryId: found.entry_id, now });
    if (sync.external_id !== external.externalId || sync.external_version === external.version) return 'UNCHANGED';
    const who = fromConnection(connection.id);
    if (sync.status === 'SYNCED') {
      try {
        // a savepoint: a refusal raised half-way through leaves no partial change behind
        const changed = await db().transaction({ transaction: tx }, (sp) =>
          applyExternal(
            sp,
            entry,
            external,
            who,
            { source: 'SYNC_PULL', connectionId: connection.id, externalVersion: external.version },
            provider.referenceMaxLength,
          ),
        );
        await updateSync(tx, sync, { external_version: external.version, synced_at: now, last_error: null }, now);
        return changed ? 'UPDATED' : 'UNCHANGED';
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        await intoConflict(tx, sync, external, who, err.message);
        return 'CONFLICT';
      }
    }
    if (sync.status === 'STALE' || (sync.status === 'FAILED' && sync.external_id)) {
      await intoConflict(tx, sync, external, who, 'The entry changed locally and in the external system; resolve the conflict');
      return 'CONFLICT';
    }
    if (sync.status === 'CONFLICT') {
      if (sync.external_snapshot?.version === external.version) return 'UNCHANGED';
      await updateSync(tx, sync, { external_snapshot: external }, now);
      return 'CONFLICT';
    }
    return 'UNCHANGED';
  });
}

async function intoConflict(tx: Transaction, sync: SyncRow, external: ExternalEntry, who: EventActor, reason: string): Promise<void> {
  const now = clock.now();
  const updated = await updateSync(tx, sync, { status: 'CONFLICT', external_snapshot: external, last_error: reason.slice(0, 4000) }, now);
  await recordSyncEvent(
    tx,
    updated,
    'SYNC_CONFLICT',
    { from: sync.status, externalId: external.externalId, externalVersion: external.version, syncedVersion: sync.external_version, reason },
    who,
  );
}
