import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import type { EntryType, LinkType } from '../../../shared/contracts/entries.js';
import { chainedEvent, type EventActor, type EventInsertRow, type EventKind } from './audit-events.js';
import type { EntryValuation } from './core/reactions.js';

export type NewEntry = {
  workspaceId: number;
  projectId: number;
  entrySourceId: number;
  entryType: EntryType;
  baseCurrency: string;
  amountCents: number;
  fromPartyId?: number | null;
  toPartyId?: number | null;
  entryDate: string;
  description?: string | null;
  reference?: string | null;
  excludeFromSync?: boolean;
  categoryId?: string | null;
  createdBy: string | null;
  items?: { description: string; quantity: number; unitAmountCents: number; amountCents: number; categoryId?: string }[];
  transactions?: { transactionDate: string; amountCents: number; method?: string; externalRef?: string }[];
  tagIds?: number[];
  /** CONTRACT §17: fx_rate, fx_rate_date, amount_base_cents (none: all null) */
  valuation?: EntryValuation;
  /** CONTRACT §25: the recurring entry and date this entry is the occurrence of (both or neither) */
  recurringEntryId?: string | null;
  occurrenceDate?: string | null;
};

/** An id for an entry about to be inserted (its first event is hashed before the insert). */
export async function nextEntryId(tx: Transaction): Promise<number> {
  const [row] = await db().query<{ id: number }>("SELECT nextval(pg_get_serial_sequence('entries', 'id'))::bigint AS id", {
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row.id;
}

/** The columns a new entry is written with, in the order of `insertEntriesSql`'s row source. */
export const ENTRY_COLUMNS = [
  'id',
  'workspace_id',
  'project_id',
  'entry_source_id',
  'entry_type',
  'entry_status',
  'base_currency',
  'amount_cents',
  'from_party_id',
  'to_party_id',
  'entry_date',
  'description',
  'reference',
  'exclude_from_sync',
  'category_id',
  'created_by',
  'created_at',
  'updated_at',
  'fx_rate',
  'fx_rate_date',
  'amount_base_cents',
  'integration_id',
  'external_id',
  'recurring_entry_id',
  'occurrence_date',
] as const;

/**
 * THE insert of entries (DESIGN §2a: one insert path): every new entry — POST /entries, refunds, reimbursements,
 * corrections, bank lines (entry-writes-many.ts, from core/create.ts) and ingest batches (core/ingest-rows.ts) — is written by this statement text,
 * from `rows`, an SQL row source aliased `r` with the columns of ENTRY_COLUMNS, followed by `tail` (ON CONFLICT …).
 * New entries are PENDING; PostgreSQL checks them against closed periods (migration 0023).
 */
export const insertEntriesSql = (rows: string, tail = ''): string =>
  `INSERT INTO entries (${ENTRY_COLUMNS.join(', ')})
  SELECT ${ENTRY_COLUMNS.map((c) => `r.${c}`).join(', ')} FROM ${rows}
  ${tail}
  RETURNING *`;

/** The outbound events of the new entry, written by its insert (see EntryReactions.createdOutbox). */
export type InsertOutbox = { json: string; ctes: (events: string, now: string) => string };

/** The entry's line items as the inserts read them (entry_items columns, in their order). */
export const itemRows = (e: Pick<NewEntry, 'items'>) =>
  (e.items ?? []).map((it, position) => ({
    position,
    description: it.description,
    quantity: it.quantity,
    unit_amount_cents: it.unitAmountCents,
    amount_cents: it.amountCents,
    category_id: it.categoryId ?? null,
  }));

/** The entry's payments as the inserts read them (entry_transactions columns). */
export const paymentRows = (e: Pick<NewEntry, 'transactions'>) =>
  (e.transactions ?? []).map((p) => ({
    transaction_date: p.transactionDate,
    amount_cents: p.amountCents,
    method: p.method ?? null,
    external_ref: p.externalRef ?? null,
  }));

/** A new entry's first events: ENTRY_CREATED (with `eventData`), then `following` chained after it. */
export function createdChain(
  e: Pick<NewEntry, 'workspaceId' | 'entryType' | 'amountCents' | 'baseCurrency' | 'entryDate' | 'projectId'> & { id: number },
  actor: EventActor,
  eventData: Record<string, unknown>,
  following: { kind: EventKind; data: Record<string, unknown> }[],
  now: Date,
): EventInsertRow[] {
  const entry = { id: e.id, workspace_id: e.workspaceId };
  const data = {
    entryType: e.entryType,
    amountCents: e.amountCents,
    baseCurrency: e.baseCurrency,
    entryDate: e.entryDate,
    projectId: e.projectId,
  };
  const event = chainedEvent(undefined, entry, 'ENTRY_CREATED', { ...data, ...eventData }, actor, now.toISOString());
  const chain = [event];
  for (const f of following) chain.push(chainedEvent(chain[chain.length - 1], entry, f.kind, f.data, actor, event.created_at));
  return chain;
}

export async function setEntryTags(tx: Transaction, entry: { id: number; workspace_id: number }, tagIds: number[]): Promise<void> {
  await db().query('DELETE FROM entry_tags WHERE workspace_id = :ws AND entry_id = :id', {
    replacements: { id: entry.id, ws: entry.workspace_id },
    transaction: tx,
  });
  const unique = [...new Set(tagIds)];
  if (unique.length === 0) return;
  await db().query(`INSERT INTO entry_tags (entry_id, tag_id, workspace_id) SELECT :id, unnest(ARRAY[:tagIds]::int[]), :ws`, {
    replacements: { id: entry.id, tagIds: unique, ws: entry.workspace_id },
    transaction: tx,
  });
}

export async function tagIdsOf(tx: Transaction | undefined, entry: { id: number; workspace_id: number }): Promise<number[]> {
  const rows = await db().query<{ tag_id: number }>(
    'SELECT tag_id FROM entry_tags WHERE workspace_id = :ws AND entry_id = :id ORDER BY tag_id',
    {
      replacements: { id: entry.id, ws: entry.workspace_id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return rows.map((r) => r.tag_id);
}

export async function linkEntries(
  tx: Transaction,
  workspaceId: number,
  type: LinkType,
  originalId: number,
  derivedId: number,
): Promise<void> {
  await db().query(
    `INSERT INTO entry_links (workspace_id, link_type, original_entry_id, derived_entry_id, created_at) VALUES (:ws, :type, :o, :d, :now)`,
    { replacements: { ws: workspaceId, type, o: originalId, d: derivedId, now: clock.now() }, transaction: tx },
  );
}

/** Sum of the non-voided entries derived from `originalId` by links of `type`. */
export async function derivedTotal(tx: Transaction, originalId: number, types: LinkType[]): Promise<number> {
  const [row] = await db().query<{ total: number }>(
    `SELECT COALESCE(SUM(d.amount_cents), 0)::bigint AS total
       FROM entry_links l JOIN entries d ON d.id = l.derived_entry_id
      WHERE l.original_entry_id = :id AND l.link_type IN (:types) AND d.entry_status <> 'VOIDED'`,
    { replacements: { id: originalId, types }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row.total;
}
