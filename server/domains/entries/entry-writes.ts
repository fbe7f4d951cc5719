import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import type { EntryType, LinkType } from '../../../shared/contracts/entries.js';
import type { EntryRow } from './entry-rows.js';
import { chainedEvent, insertEventsSql, type EventActor, type EventInsertRow, type EventKind } from './audit-events.js';
import type { EntryValuation } from './core/reactions.js';
import { preparedQuery } from '../../db/prepared.js';

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
 * corrections, bank lines (insertEntry) and ingest batches (core/ingest-rows.ts) — is written by this statement text,
 * from `rows`, an SQL row source aliased `r` with the columns of ENTRY_COLUMNS, followed by `tail` (ON CONFLICT …).
 * New entries are PENDING; PostgreSQL checks them against closed periods (migration 0023).
 */
export const insertEntriesSql = (rows: string, tail = ''): string =>
  `INSERT INTO entries (${ENTRY_COLUMNS.join(', ')})
  SELECT ${ENTRY_COLUMNS.map((c) => `r.${c}`).join(', ')} FROM ${rows}
  ${tail}
  RETURNING *`;

/**
 * The entry with its items, payments, tags (with their ranks: migration 0021) and ENTRY_CREATED event, in one statement (a new
 * entry is invisible to every other transaction, so its chain starts at seq 1 unlocked), and
 * with `outbox` its outbound events (CTEs of webhooks' outbox over parameter $26). Bind parameters
 * with explicit types, run as a named statement (parsed and planned once per connection).
 */
const insertEntrySql = (outbox?: (events: string, now: string) => string) => `
WITH entry AS (
  ${insertEntriesSql(
    `(VALUES ($1::bigint, $2::int, $3::int, $4::int, $5::text, 'PENDING', $6::text, $7::bigint, $8::int, $9::int, $10::date, $11::text,
              $12::text, $13::boolean, $14::uuid, $15::uuid, $16::timestamptz, $16::timestamptz, $17::text, $18::date, $19::bigint,
              NULL::uuid, NULL::text, $24::uuid, $25::date)) AS r(${ENTRY_COLUMNS.join(', ')})`,
  )}
), items AS (
  INSERT INTO entry_items (entry_id, workspace_id, position, description, quantity, unit_amount_cents, amount_cents, category_id)
  SELECT $1::bigint, $2::int, i.position, i.description, i.quantity, i.unit_amount_cents, i.amount_cents, i.category_id
    FROM jsonb_to_recordset($20::jsonb)
      AS i(position int, description text, quantity numeric, unit_amount_cents bigint, amount_cents bigint, category_id uuid)
), payments AS (
  INSERT INTO entry_transactions (entry_id, workspace_id, transaction_date, amount_cents, method, external_ref)
  SELECT $1::bigint, $2::int, t.transaction_date, t.amount_cents, t.method, t.external_ref
    FROM jsonb_to_recordset($21::jsonb) AS t(transaction_date date, amount_cents bigint, method text, external_ref text)
), tags AS (
  INSERT INTO entry_tags (entry_id, tag_id, workspace_id, tag_rank, tag_count)
  SELECT $1::bigint, tag_id, $2::int, row_number() OVER (ORDER BY tag_id), count(*) OVER () FROM unnest($22::int[]) AS tag_id
), event AS (
  ${insertEventsSql('$23')}
)${outbox ? `, ${outbox('$26', '$16::timestamptz')}` : ''}
SELECT * FROM entry`;

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

/** Inserts an entry with its items, payments and tags, and records ENTRY_CREATED. No rule checks here: core/create.ts holds them. */
export async function insertEntry(
  tx: Transaction,
  e: NewEntry & { id?: number },
  actor: EventActor,
  eventData: Record<string, unknown> = {},
  /** events chained after ENTRY_CREATED in the same statement (RULE_APPLIED of the rules that ran on it) */
  following: { kind: EventKind; data: Record<string, unknown> }[] = [],
  opts: { now?: Date; outbox?: InsertOutbox } = {},
): Promise<EntryRow> {
  const now = opts.now ?? clock.now();
  const id = e.id ?? (await nextEntryId(tx));
  const chain = createdChain({ ...e, id }, actor, eventData, following, now);
  const values: unknown[] = [
    id,
    e.workspaceId,
    e.projectId,
    e.entrySourceId,
    e.entryType,
    e.baseCurrency,
    e.amountCents,
    e.fromPartyId ?? null,
    e.toPartyId ?? null,
    e.entryDate,
    e.description ?? null,
    e.reference ?? null,
    e.excludeFromSync ?? false,
    e.categoryId ?? null,
    e.createdBy,
    now,
    e.valuation?.fxRate ?? null,
    e.valuation?.fxRateDate ?? null,
    e.valuation?.amountBaseCents ?? null,
    JSON.stringify(itemRows(e)),
    JSON.stringify(paymentRows(e)),
    [...new Set(e.tagIds ?? [])],
    JSON.stringify(chain),
    e.recurringEntryId ?? null,
    e.occurrenceDate ?? null,
  ];
  if (opts.outbox) values.push(opts.outbox.json);
  const name = opts.outbox ? 'entries_insert_with_outbox' : 'entries_insert';
  const [row] = await preparedQuery<EntryRow>(tx, name, (statements[name] ??= insertEntrySql(opts.outbox?.ctes)), values);
  return row;
}

/** The text of each named statement, built once (a name must always carry the same text). */
const statements: Partial<Record<'entries_insert' | 'entries_insert_with_outbox', string>> = {};

export async function setEntryTags(tx: Transaction, entry: { id: number; workspace_id: number }, tagIds: number[]): Promise<void> {
  await db().query('DELETE FROM entry_tags WHERE entry_id = :id', { replacements: { id: entry.id }, transaction: tx });
  const unique = [...new Set(tagIds)];
  if (unique.length === 0) return;
  await db().query(`INSERT INTO entry_tags (entry_id, tag_id, workspace_id) SELECT :id, unnest(ARRAY[:tagIds]::int[]), :ws`, {
    replacements: { id: entry.id, tagIds: unique, ws: entry.workspace_id },
    transaction: tx,
  });
}

export async function tagIdsOf(tx: Transaction | undefined, entryId: number): Promise<number[]> {
  const rows = await db().query<{ tag_id: number }>('SELECT tag_id FROM entry_tags WHERE entry_id = :id ORDER BY tag_id', {
    replacements: { id: entryId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
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
