import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { onCitus } from '../../db/distributed.js';
import { iso } from '../../lib/dates.js';
import { notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { EntryObject, EntryStatus, EntryType } from '../../../shared/contracts/entries.js';

export type EntryRow = {
  id: number;
  workspace_id: number;
  project_id: number;
  entry_source_id: number;
  entry_type: EntryType;
  entry_status: EntryStatus;
  status_reason: string | null;
  base_currency: string;
  amount_cents: number;
  from_party_id: number | null;
  to_party_id: number | null;
  entry_date: string;
  description: string | null;
  reference: string | null;
  is_reconciled: boolean;
  reconciled_at: Date | null;
  reconciled_by: string | null;
  exclude_from_sync: boolean;
  is_complete: boolean;
  category_id: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  /** CONTRACT §17 valuation (canonical decimal text, date, base-currency minor units), all null without a rate */
  fx_rate: string | null;
  fx_rate_date: string | null;
  amount_base_cents: number | null;
  /** CONTRACT §25: the recurring entry and date of the occurrence this entry is (both null otherwise) */
  recurring_entry_id: string | null;
  occurrence_date: string | null;
};

/** The entry row as the contract shows it (CONTRACT §5). */
export function presentEntry(r: EntryRow): EntryObject {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    projectId: r.project_id,
    entrySourceId: r.entry_source_id,
    entryType: r.entry_type,
    entryStatus: r.entry_status,
    statusReason: r.status_reason,
    baseCurrency: r.base_currency.trim(),
    amountCents: r.amount_cents,
    fromPartyId: r.from_party_id,
    toPartyId: r.to_party_id,
    entryDate: r.entry_date,
    description: r.description,
    reference: r.reference,
    isReconciled: r.is_reconciled,
    reconciledAt: iso(r.reconciled_at),
    reconciledBy: r.reconciled_by,
    excludeFromSync: r.exclude_from_sync,
    isComplete: r.is_complete,
    categoryId: r.category_id,
    createdBy: r.created_by,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    fxRate: r.fx_rate,
    fxRateDate: r.fx_rate_date,
    amountBaseCents: r.amount_base_cents,
    recurringEntryId: r.recurring_entry_id ?? null,
    occurrenceDate: r.occurrence_date ?? null,
  };
}

/**
 * THE way to lock entries (DESIGN §2a): the rows of `ids` that exist (of workspace `workspaceId` when given),
 * locked FOR UPDATE in id order — the one lock order of every writer, so two writers of overlapping sets never
 * deadlock — and returned in id order as they are now. Locks last until the transaction ends.
 * On Citus a FOR UPDATE must name one workspace (one shard group, CONTRACT §24): without `workspaceId` the entries'
 * workspaces are read first there, and the rows locked workspace by workspace (an entry never changes workspace).
 */
export async function lockMany(tx: Transaction, ids: readonly number[], workspaceId?: number): Promise<EntryRow[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  if (workspaceId !== undefined) return lockOfWorkspace(tx, unique, workspaceId);
  if (!(await onCitus())) {
    return db().query<EntryRow>('SELECT * FROM entries WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE', {
      bind: [unique],
      type: QueryTypes.SELECT,
      transaction: tx,
    });
  }
  const found = await db().query<{ workspace_id: number }>(
    'SELECT DISTINCT workspace_id FROM entries WHERE id = ANY($1::bigint[]) ORDER BY workspace_id',
    { bind: [unique], type: QueryTypes.SELECT, transaction: tx },
  );
  const rows: EntryRow[] = [];
  for (const { workspace_id } of found) rows.push(...(await lockOfWorkspace(tx, unique, workspace_id)));
  return found.length > 1 ? rows.sort((a, b) => Number(a.id) - Number(b.id)) : rows;
}

const lockOfWorkspace = (tx: Transaction, ids: number[], workspaceId: number) =>
  db().query<EntryRow>(`SELECT * FROM entries WHERE workspace_id = $2::int AND id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`, {
    bind: [ids, workspaceId],
    type: QueryTypes.SELECT,
    transaction: tx,
  });

/** Loads an entry the actor may see, or 404. */
export async function loadEntry(actor: Actor | null, id: number, tx?: Transaction): Promise<EntryRow> {
  const rows = await db().query<EntryRow>('SELECT * FROM entries WHERE id = :id', {
    replacements: { id },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return visible(actor, rows[0]);
}

function visible(actor: Actor | null, row: EntryRow | undefined): EntryRow {
  if (!row) throw notFound('Entry');
  if (actor) scope.projectObject(actor, { workspaceId: row.workspace_id, projectId: row.project_id }, 'Entry');
  return row;
}

/** One entry the actor may see, locked (lockMany), or 404: every state change of an entry goes through here first. */
export const lockEntry = async (actor: Actor | null, id: number, tx: Transaction): Promise<EntryRow> =>
  visible(actor, (await lockMany(tx, [id]))[0]);

/** Column → value changes, applied with one UPDATE that also bumps updated_at. */
export async function updateEntryRow(
  tx: Transaction,
  { id, workspace_id }: Pick<EntryRow, 'id' | 'workspace_id'>,
  changes: Record<string, unknown>,
  now: Date,
): Promise<EntryRow> {
  const sets = Object.keys(changes).map((col) => `${col} = :${col}`);
  const [row] = await db().query<EntryRow>(
    // the workspace routes it to one shard group on Citus (CONTRACT §24), not an update of every shard
    `UPDATE entries SET ${[...sets, 'updated_at = :updated_at'].join(', ')} WHERE workspace_id = :workspace_id AND id = :id RETURNING *`,
    {
      replacements: { ...changes, updated_at: now, id, workspace_id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return row;
}

/** The entry's row as it stands now in this transaction (after a reaction changed it). */
export async function reloadRow(tx: Transaction, id: number): Promise<EntryRow> {
  const [row] = await db().query<EntryRow>('SELECT * FROM entries WHERE id = :id', {
    replacements: { id },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row;
}
