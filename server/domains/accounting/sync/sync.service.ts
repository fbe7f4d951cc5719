import { QueryTypes } from 'sequelize';
import { db } from '../../../db/database.js';
import { notFound, presentError } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import { runtime } from '../../../runtime.js';
import type { PullResult, PushPreview, RetryBatchResult, SyncListRow, SyncObject, SyncStatus } from '../../../../shared/contracts/sync.js';
import { loadEntry, type EntryRow } from '../../entries/index.js';
import { byUser } from '../../entries/index.js';
import { loadConnection } from '../connections/connection-rows.js';
import { keepExternal, keepLocal, retrySync } from './conflicts.js';
import { importChartOfAccounts } from './import-chart.js';
import { importParties } from './import-parties.js';
import { pullConnection } from './pull.js';
import { runPush } from './push.js';
import { loadSync, presentSync, type SyncRow } from './sync-rows.js';

/**
 * The sync operations of CONTRACT §9 as the API offers them (permission accounting.manage is
 * checked by the router): connections, entries and sync records of workspaces the caller is
 * not a member of are 404; a foreign workspaceId in a query is 403.
 */

/** An entry of a workspace the actor is a member of (sync is a workspace-level resource), or 404. */
async function memberEntry(actor: Actor, entryId: number): Promise<EntryRow> {
  const entry = await loadEntry(null, entryId);
  if (!scope.canSeeWorkspaceObject(actor, entry.workspace_id)) throw notFound('Entry');
  return entry;
}

export async function push(
  actor: Actor,
  input: { entryId: number; connectionId: string; dryRun?: boolean },
): Promise<SyncObject | PushPreview> {
  const connection = await loadConnection(actor, input.connectionId);
  const entry = await memberEntry(actor, input.entryId);
  if (entry.workspace_id !== connection.workspace_id) throw notFound('Entry');
  const outcome = await runPush({ connectionId: connection.id, entryId: entry.id, who: byUser(actor), mode: 'PUSH', dryRun: input.dryRun });
  if (input.dryRun) {
    return {
      dryRun: true,
      operation: outcome.operation,
      request: outcome.preview ?? null,
      sync: outcome.sync ? presentSync(outcome.sync) : null,
    };
  }
  return presentSync(outcome.sync!);
}

export async function pull(actor: Actor, input: { connectionId: string; since?: string }): Promise<PullResult> {
  await loadConnection(actor, input.connectionId);
  return pullConnection(input.connectionId, { since: input.since ? new Date(input.since) : undefined });
}

export async function pullChartOfAccounts(actor: Actor, input: { connectionId: string }) {
  await loadConnection(actor, input.connectionId);
  return importChartOfAccounts(input.connectionId);
}

export async function pullParties(actor: Actor, input: { connectionId: string }) {
  await loadConnection(actor, input.connectionId);
  return importParties(input.connectionId);
}

export async function resolveConflict(
  actor: Actor,
  input: { syncId: string; resolution: 'KEEP_LOCAL' | 'KEEP_EXTERNAL' },
): Promise<SyncObject> {
  const sync = await loadSync(actor, input.syncId);
  const resolved = input.resolution === 'KEEP_LOCAL' ? await keepLocal(sync, byUser(actor)) : await keepExternal(sync, byUser(actor));
  return presentSync(resolved);
}

export async function entrySyncs(actor: Actor, entryId: number): Promise<SyncObject[]> {
  await memberEntry(actor, entryId);
  const rows = await db().query<SyncRow>('SELECT * FROM accounting_syncs WHERE entry_id = :entryId ORDER BY created_at, id', {
    replacements: { entryId },
    type: QueryTypes.SELECT,
  });
  return rows.map(presentSync);
}

export async function pendingSyncs(actor: Actor, connectionId: string): Promise<SyncObject[]> {
  await loadConnection(actor, connectionId);
  const rows = await db().query<SyncRow>(
    `SELECT * FROM accounting_syncs WHERE connection_id = :connectionId AND status = 'PENDING' ORDER BY created_at, id`,
    { replacements: { connectionId }, type: QueryTypes.SELECT },
  );
  return rows.map(presentSync);
}

type ListRow = SyncRow & {
  connection_name: string;
  provider_type: string;
  entry_type: 'INCOME' | 'EXPENSE';
  entry_status: string;
  amount_cents: number;
  base_currency: string;
  entry_date: string;
  description: string | null;
};

export async function listSyncs(
  actor: Actor,
  query: { workspaceId: number; status?: SyncStatus; limit: number; offset: number },
): Promise<{ items: SyncListRow[]; total: number; limit: number; offset: number }> {
  scope.requireWorkspaceMember(actor, query.workspaceId);
  const where = `s.workspace_id = :ws${query.status ? ' AND s.status = :status' : ''}`;
  const replacements = { ws: query.workspaceId, status: query.status ?? null, limit: query.limit, offset: query.offset };
  const [{ total }] = await db().query<{ total: number }>(`SELECT count(*)::int AS total FROM accounting_syncs s WHERE ${where}`, {
    replacements,
    type: QueryTypes.SELECT,
  });
  const rows = await db().query<ListRow>(
    `SELECT s.*, c.name AS connection_name, c.provider_type,
            e.entry_type, e.entry_status, e.amount_cents, e.base_currency, e.entry_date, e.description
       FROM accounting_syncs s
       JOIN accounting_connections c ON c.workspace_id = s.workspace_id AND c.id = s.connection_id
       JOIN entries e ON e.workspace_id = s.workspace_id AND e.id = s.entry_id
      WHERE ${where}
      ORDER BY s.updated_at DESC, s.id DESC
      LIMIT :limit OFFSET :offset`,
    { replacements, type: QueryTypes.SELECT },
  );
  const items = rows.map((r) => ({
    ...presentSync(r),
    connection: { id: r.connection_id, name: r.connection_name, providerType: r.provider_type },
    entry: {
      id: r.entry_id,
      entryType: r.entry_type,
      entryStatus: r.entry_status,
      amountCents: r.amount_cents,
      baseCurrency: r.base_currency.trim(),
      entryDate: r.entry_date,
      description: r.description,
    },
  }));
  return { items, total, limit: query.limit, offset: query.offset };
}

export async function retry(actor: Actor, id: string): Promise<{ success: boolean }> {
  const sync = await loadSync(actor, id);
  return { success: await retrySync(sync, byUser(actor)) };
}

/** Each record on its own (like the review batches): one refusal does not stop the others. */
export async function retryBatch(actor: Actor, input: { syncIds: string[] }): Promise<RetryBatchResult> {
  let retried = 0;
  for (const id of new Set(input.syncIds)) {
    try {
      if ((await retry(actor, id)).success) retried++;
    } catch (err) {
      if (presentError(err).status >= 500) runtime().logger.error({ err, syncId: id }, 'retry-batch item failed');
    }
  }
  const failed = new Set(input.syncIds).size - retried;
  return { success: failed === 0, retried, failed };
}
