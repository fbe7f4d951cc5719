import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { updateTenantRow } from '../../../db/update-row.js';
import { iso } from '../../../lib/dates.js';
import { notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { SyncObject, SyncStatus } from '../../../../shared/contracts/sync.js';
import { publish } from '../../outbound-webhooks/index.js';
import type { ExternalEntry } from '../providers/provider.js';

export type SyncRow = {
  id: string;
  workspace_id: number;
  connection_id: string;
  entry_id: number;
  status: SyncStatus;
  external_id: string | null;
  external_version: string | null;
  last_error: string | null;
  attempts: number;
  last_attempt_at: Date | null;
  synced_at: Date | null;
  /** the external record as last read, kept while the record is in CONFLICT */
  external_snapshot: ExternalEntry | null;
  created_at: Date;
  updated_at: Date;
};

/** The sync record as the contract shows it (CONTRACT §9); the snapshot stays internal. */
export function presentSync(r: SyncRow): SyncObject {
  return {
    id: r.id,
    connectionId: r.connection_id,
    entryId: r.entry_id,
    status: r.status,
    externalId: r.external_id,
    externalVersion: r.external_version,
    lastError: r.last_error,
    attempts: r.attempts,
    lastAttemptAt: iso(r.last_attempt_at),
    syncedAt: iso(r.synced_at),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export async function findSync(tx: Transaction | undefined, connectionId: string, entryId: number): Promise<SyncRow | null> {
  const rows = await db().query<SyncRow>('SELECT * FROM accounting_syncs WHERE connection_id = :connectionId AND entry_id = :entryId', {
    replacements: { connectionId, entryId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return rows[0] ?? null;
}

export async function findSyncById(id: string, tx?: Transaction): Promise<SyncRow | null> {
  const rows = await db().query<SyncRow>('SELECT * FROM accounting_syncs WHERE id = :id', {
    replacements: { id },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return rows[0] ?? null;
}

/** A sync record of a workspace the actor is a member of, or 404. */
export async function loadSync(actor: Actor, id: string, tx?: Transaction): Promise<SyncRow> {
  const row = await findSyncById(id, tx);
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('Sync record');
  return row;
}

/**
 * The (connection, entry) record, created PENDING when missing, locked until the transaction
 * ends: INSERT … ON CONFLICT DO NOTHING, then SELECT … FOR UPDATE.
 */
export async function lockOrCreateSync(tx: Transaction, r: { workspaceId: number; connectionId: string; entryId: number; now: Date }) {
  await db().query(
    `INSERT INTO accounting_syncs (workspace_id, connection_id, entry_id, status, created_at, updated_at)
     VALUES (:ws, :connectionId, :entryId, 'PENDING', :now, :now)
     ON CONFLICT ON CONSTRAINT accounting_syncs_connection_entry_key DO NOTHING`,
    { replacements: { ws: r.workspaceId, connectionId: r.connectionId, entryId: r.entryId, now: r.now }, transaction: tx },
  );
  const rows = await db().query<SyncRow>(
    'SELECT * FROM accounting_syncs WHERE connection_id = :connectionId AND entry_id = :entryId AND workspace_id = :ws FOR UPDATE',
    {
      replacements: { connectionId: r.connectionId, entryId: r.entryId, ws: r.workspaceId },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return rows[0];
}

type SyncChanges = Partial<Omit<SyncRow, 'id' | 'workspace_id' | 'connection_id' | 'entry_id' | 'created_at' | 'external_snapshot'>> & {
  external_snapshot?: ExternalEntry | null;
};

/** The outbound events (CONTRACT §15) of the statuses a sync record is set to. */
const OUTBOUND_EVENTS: Partial<Record<SyncStatus, 'sync.synced' | 'sync.failed' | 'sync.conflict'>> = {
  SYNCED: 'sync.synced',
  FAILED: 'sync.failed',
  CONFLICT: 'sync.conflict',
};

/** Column → value changes in one UPDATE that also sets updated_at; a status change publishes its outbound event. */
export async function updateSync(
  tx: Transaction,
  key: Pick<SyncRow, 'id' | 'workspace_id'>,
  changes: SyncChanges,
  now: Date,
): Promise<SyncRow> {
  const values: Record<string, unknown> = { ...changes };
  if ('external_snapshot' in values)
    values.external_snapshot = values.external_snapshot === null ? null : JSON.stringify(values.external_snapshot);
  const row = await updateTenantRow<SyncRow>(tx, 'accounting_syncs', key, values, now, { external_snapshot: 'jsonb' });
  const event = changes.status && OUTBOUND_EVENTS[changes.status];
  if (event) await publish(tx, { workspaceId: row.workspace_id, type: event, object: presentSync(row) });
  return row;
}

/**
 * Serialises every operation that may call the provider for one (connection, entry) — push,
 * retry, resolve, and a pull's handling of that record — for the rest of the transaction.
 */
export async function lockSyncSlot(tx: Transaction, connectionId: string, entryId: number): Promise<void> {
  await db().query(`SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))`, {
    replacements: { key: `accounting-sync:${connectionId}:${entryId}` },
    transaction: tx,
  });
}
