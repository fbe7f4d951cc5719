import { createHash } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { AppError, conflict, notFound } from '../../../lib/errors.js';
import { loadEntry, lockEntry, type EntryRow } from '../../entries/index.js';
import { canonicalJson, type EventActor } from '../../entries/index.js';
import { loadConnection } from '../connections/connection-rows.js';
import type { AccountingProvider, ExternalRef, OutboundEntry, RequestPreview } from '../providers/provider.js';
import { ProviderError } from '../providers/provider-error.js';
import { providerFor } from '../providers/registry.js';
import { outboundEntry } from './outbound-entry.js';
import { assertPushAllowed } from './push-preconditions.js';
import { recordSyncEvent } from './sync-events.js';
import { findSync, lockOrCreateSync, lockSyncSlot, updateSync, type SyncRow } from './sync-rows.js';

/**
 * Pushing one entry to one connection (CONTRACT §9), for every caller: the push endpoint, an
 * approval in AUTO_PUSH / BIDIRECTIONAL, retry, and resolve KEEP_LOCAL.
 *
 * Serialisation: everything runs in one transaction that first takes an advisory lock keyed on
 * (connection, entry) and keeps it across the provider call, so racing pushes run one after the
 * other — the second finds the record SYNCED and does nothing: one external record. The sync
 * and entry ROWS are not held across the call: an entry edit locks the entry and then (through
 * the STALE hook) the sync row, and recording our outcome needs the entry lock for its event, so
 * holding the sync row across the call would deadlock against edits, and would block every edit
 * of the entry for the call's whole duration. Instead the outcome is recorded after the call with
 * the rows locked in the order edits use (entry, then sync row: INSERT … ON CONFLICT DO NOTHING,
 * SELECT … FOR UPDATE), and an edit that landed during the call is detected by comparing what
 * was sent with what would be sent now: the record then becomes STALE instead of SYNCED.
 */

export type PushMode = 'PUSH' | 'APPROVAL' | 'RETRY' | 'KEEP_LOCAL';
export type PushOperation = 'CREATE' | 'UPDATE' | 'NONE';
export type PushRequest = { connectionId: string; entryId: number; who: EventActor; mode: PushMode; dryRun?: boolean };
export type PushOutcome = {
  sync: SyncRow | null;
  operation: PushOperation;
  preview?: RequestPreview | null;
  /** RETRY of a CONFLICT whose external record changed since our last sync: nothing was pushed */
  conflictKept?: boolean;
};

/** The same key for every create of one (connection, entry): a retried create cannot make a second external record. */
export const idempotencyKeyFor = (connectionId: string, entryId: number) =>
  createHash('sha256').update(`accounting-sync:${connectionId}:${entryId}`).digest('hex').slice(0, 32);

const MAX_ERROR = 4000;

/** Which statuses each caller may push from (409 otherwise; SYNCED is a no-op for PUSH and APPROVAL). */
function assertModeAllows(mode: PushMode, sync: SyncRow | null): void {
  const status = sync?.status ?? null;
  if (mode === 'PUSH' || mode === 'APPROVAL') {
    if (status === 'CONFLICT') throw conflict('The sync record is in CONFLICT: resolve it (resolve-conflict) or retry it');
    return;
  }
  if (mode === 'RETRY') {
    if (status !== 'FAILED' && status !== 'STALE' && status !== 'CONFLICT') {
      throw conflict(`Only FAILED, STALE or CONFLICT records can be retried; this one is ${status ?? 'missing'}`);
    }
    return;
  }
  if (status !== 'CONFLICT') throw conflict(`Only a record in CONFLICT can be resolved; this one is ${status ?? 'missing'}`);
}

type Prepared = { provider: AccountingProvider | null; problem: unknown };

/** Builds the adapter and does its pre-lock work (SSRF check, token refresh); a problem is kept for later. */
async function prepareProvider(connectionId: string, dryRun: boolean): Promise<Prepared> {
  try {
    const provider = providerFor(await loadConnection(null, connectionId));
    await provider.assertTarget();
    if (!dryRun) await provider.prepare();
    return { provider, problem: null };
  } catch (err) {
    return { provider: null, problem: err };
  }
}

/** Provider failures and refusals raised while talking to the provider become the record's lastError. */
const failureMessage = (err: unknown): string | null =>
  err instanceof ProviderError || err instanceof AppError ? err.message.slice(0, MAX_ERROR) : null;

export async function runPush(req: PushRequest): Promise<PushOutcome> {
  const prepared = await prepareProvider(req.connectionId, req.dryRun === true);
  return transaction(async (tx) => {
    await lockSyncSlot(tx, req.connectionId, req.entryId);
    const connection = await loadConnection(null, req.connectionId, tx);
    const entry = await loadEntry(null, req.entryId, tx);
    if (entry.workspace_id !== connection.workspace_id) throw notFound('Entry');
    const sync = await findSync(tx, req.connectionId, req.entryId);
    try {
      assertModeAllows(req.mode, sync);
      await assertPushAllowed(tx, connection, entry, sync);
      if (prepared.problem instanceof AppError) throw prepared.problem;
    } catch (err) {
      if (req.mode === 'APPROVAL' && err instanceof AppError && sync?.status !== 'CONFLICT') {
        return { sync: await recordFailure(tx, req, entry, err.message, 'NONE'), operation: 'NONE' };
      }
      throw err;
    }
    if (prepared.problem && !(prepared.problem instanceof ProviderError)) throw prepared.problem;
    if (sync?.status === 'SYNCED') return { sync, operation: 'NONE', preview: null };

    const payload = await outboundEntry(tx, req.connectionId, entry);
    const baseVersion =
      req.mode === 'KEEP_LOCAL' ? (sync?.external_snapshot?.version ?? sync?.external_version ?? null) : (sync?.external_version ?? null);
    const ref: ExternalRef | null = sync?.external_id ? { externalId: sync.external_id, version: baseVersion } : null;
    const operation: PushOperation = ref ? 'UPDATE' : 'CREATE';
    const key = idempotencyKeyFor(req.connectionId, req.entryId);

    if (req.dryRun) {
      try {
        if (prepared.problem) throw prepared.problem;
        const preview = ref ? prepared.provider!.previewUpdate(ref, payload) : prepared.provider!.previewCreate(payload, key);
        return { sync, operation, preview };
      } catch (err) {
        if (err instanceof ProviderError) throw conflict(`The push cannot be built: ${err.message}`);
        throw err;
      }
    }

    if (req.mode === 'RETRY' && sync?.status === 'CONFLICT') {
      const kept = await keepConflictUnlessUnchanged(tx, prepared, sync, entry);
      if (kept) return { sync: kept, operation: 'NONE', conflictKept: true };
    }

    let pushed: { externalId: string; version: string } | null = null;
    let failure = failureMessage(prepared.problem);
    if (!failure) {
      try {
        pushed = ref ? await prepared.provider!.pushUpdate(ref, payload) : await prepared.provider!.pushCreate(payload, key);
      } catch (err) {
        failure = failureMessage(err);
        if (!failure) throw err;
      }
    }
    if (failure || !pushed)
      return { sync: await recordFailure(tx, req, entry, failure ?? 'push failed', operation, baseVersion), operation };
    return { sync: await recordSuccess(tx, req, payload, pushed, operation), operation };
  });
}

/**
 * CONTRACT §9 "retry CONFLICT: re-read external: unchanged since our last sync → push local;
 * else stays CONFLICT". Returns the kept record, or null when the push may go ahead.
 */
async function keepConflictUnlessUnchanged(tx: Transaction, prepared: Prepared, sync: SyncRow, entry: EntryRow): Promise<SyncRow | null> {
  // the slot lock keeps every other sync operation away, and the STALE hook only touches SYNCED rows: `sync` is current
  let lastError: string;
  let snapshot = {};
  try {
    if (prepared.problem) throw prepared.problem;
    const external = await prepared.provider!.fetchOne({
      externalId: sync.external_id!,
      version: sync.external_version,
      entryType: entry.entry_type,
    });
    if (external && external.version === sync.external_version) return null;
    lastError = external
      ? `The external record changed since the last sync (version ${external.version}, last synced ${sync.external_version ?? 'none'}); resolve the conflict`
      : 'The external record no longer exists; resolve the conflict';
    if (external) snapshot = { external_snapshot: external };
  } catch (err) {
    const message = failureMessage(err);
    if (!message) throw err;
    lastError = `The external record could not be re-read: ${message}`;
  }
  const now = clock.now();
  await lockEntry(null, entry.id, tx);
  const row = await lockOrCreateSync(tx, { workspaceId: sync.workspace_id, connectionId: sync.connection_id, entryId: sync.entry_id, now });
  return updateSync(tx, row, { last_error: lastError.slice(0, MAX_ERROR), ...snapshot }, now);
}

async function recordFailure(
  tx: Transaction,
  req: PushRequest,
  entry: EntryRow,
  message: string,
  operation: PushOperation,
  baseVersion: string | null = null,
): Promise<SyncRow> {
  const now = clock.now();
  await lockEntry(null, entry.id, tx);
  const row = await lockOrCreateSync(tx, { workspaceId: entry.workspace_id, connectionId: req.connectionId, entryId: entry.id, now });
  const resolved = req.mode === 'KEEP_LOCAL';
  const updated = await updateSync(
    tx,
    row,
    {
      status: 'FAILED',
      last_error: message.slice(0, MAX_ERROR),
      attempts: row.attempts + 1,
      last_attempt_at: now,
      // KEEP_LOCAL decided to override the external version it saw: a later retry updates from there
      ...(resolved ? { external_version: baseVersion, external_snapshot: null } : {}),
    },
    now,
  );
  await recordSyncEvent(tx, updated, 'SYNC_FAILED', { operation, error: updated.last_error, attempts: updated.attempts }, req.who);
  if (resolved) await recordSyncEvent(tx, updated, 'SYNC_RESOLVED', { resolution: 'KEEP_LOCAL', status: 'FAILED' }, req.who);
  return updated;
}

async function externalIdTaken(tx: Transaction, connectionId: string, externalId: string, syncId: string): Promise<boolean> {
  const rows = await db().query(
    'SELECT 1 FROM accounting_syncs WHERE connection_id = :connectionId AND external_id = :externalId AND id <> :syncId',
    { replacements: { connectionId, externalId, syncId }, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.length > 0;
}

async function recordSuccess(
  tx: Transaction,
  req: PushRequest,
  sent: OutboundEntry,
  pushed: { externalId: string; version: string },
  operation: PushOperation,
): Promise<SyncRow> {
  const now = clock.now();
  const entry = await lockEntry(null, req.entryId, tx);
  const row = await lockOrCreateSync(tx, { workspaceId: entry.workspace_id, connectionId: req.connectionId, entryId: entry.id, now });
  if (await externalIdTaken(tx, req.connectionId, pushed.externalId, row.id)) {
    const message = `The provider answered with externalId ${pushed.externalId}, which another entry's sync record already has`;
    return recordFailure(tx, req, entry, message, operation);
  }
  const unchangedSince = canonicalJson(await outboundEntry(tx, req.connectionId, entry)) === canonicalJson(sent);
  const updated = await updateSync(
    tx,
    row,
    {
      status: unchangedSince ? 'SYNCED' : 'STALE',
      external_id: pushed.externalId,
      external_version: pushed.version,
      last_error: null,
      attempts: row.attempts + 1,
      last_attempt_at: now,
      synced_at: now,
      external_snapshot: null,
    },
    now,
  );
  await recordSyncEvent(tx, updated, 'SYNC_PUSHED', { operation, externalId: pushed.externalId, externalVersion: pushed.version }, req.who);
  if (req.mode === 'KEEP_LOCAL')
    await recordSyncEvent(tx, updated, 'SYNC_RESOLVED', { resolution: 'KEEP_LOCAL', status: updated.status }, req.who);
  if (!unchangedSince) await recordSyncEvent(tx, updated, 'SYNC_STALE', { cause: 'CHANGED_DURING_PUSH' }, req.who);
  return updated;
}
