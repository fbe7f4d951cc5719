import type { Transaction } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { EntryRow } from './entry-rows.js';
import { ENTRY_COLUMNS, insertEntriesSql, type InsertOutbox, type NewEntry } from './entry-writes.js';
import { insertEventsSql, type EventInsertRow } from './audit-events.js';

/** The SQL type of each column of ENTRY_COLUMNS, for reading the rows out of their JSON parameter. */
const COLUMN_TYPES: Record<(typeof ENTRY_COLUMNS)[number], string> = {
  id: 'bigint',
  workspace_id: 'int',
  project_id: 'int',
  entry_source_id: 'int',
  entry_type: 'text',
  entry_status: 'text',
  base_currency: 'text',
  amount_cents: 'bigint',
  from_party_id: 'int',
  to_party_id: 'int',
  entry_date: 'date',
  description: 'text',
  reference: 'text',
  exclude_from_sync: 'boolean',
  category_id: 'uuid',
  created_by: 'uuid',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  fx_rate: 'text',
  fx_rate_date: 'date',
  amount_base_cents: 'bigint',
  integration_id: 'uuid',
  external_id: 'text',
};

/**
 * insertEntry's statement for several new entries at once (a group of POST /entries, core/create-together.ts):
 * the entries ($1, in id order), their items ($2), payments ($3), tags with their ranks ($4), their events ($5)
 * and the outbox CTEs over $6 and $7 (now). Every parameter is a JSON array; one named statement whatever the size.
 */
const insertManySql = (outbox: InsertOutbox['ctes']) => `
WITH entry AS (
  ${insertEntriesSql(
    `(SELECT * FROM jsonb_to_recordset($1::jsonb) AS j(${ENTRY_COLUMNS.map((c) => `${c} ${COLUMN_TYPES[c]}`).join(', ')}) ORDER BY j.id) r`,
  )}
), items AS (
  INSERT INTO entry_items (entry_id, workspace_id, position, description, quantity, unit_amount_cents, amount_cents, category_id)
  SELECT i.entry_id, i.workspace_id, i.position, i.description, i.quantity, i.unit_amount_cents, i.amount_cents, i.category_id
    FROM jsonb_to_recordset($2::jsonb) AS i(entry_id bigint, workspace_id int, position int, description text, quantity numeric,
         unit_amount_cents bigint, amount_cents bigint, category_id uuid)
), payments AS (
  INSERT INTO entry_transactions (entry_id, workspace_id, transaction_date, amount_cents, method, external_ref)
  SELECT t.entry_id, t.workspace_id, t.transaction_date, t.amount_cents, t.method, t.external_ref
    FROM jsonb_to_recordset($3::jsonb) AS t(entry_id bigint, workspace_id int, transaction_date date, amount_cents bigint, method text,
         external_ref text)
), tags AS (
  INSERT INTO entry_tags (entry_id, tag_id, workspace_id, tag_rank, tag_count)
  SELECT g.entry_id, g.tag_id, g.workspace_id, row_number() OVER w, count(*) OVER w
    FROM jsonb_to_recordset($4::jsonb) AS g(entry_id bigint, tag_id int, workspace_id int)
  WINDOW w AS (PARTITION BY g.entry_id ORDER BY g.tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
), event AS (
  ${insertEventsSql('$5')}
), ${outbox('$6', '$7::timestamptz')}
SELECT * FROM entry ORDER BY id`;

/** A new entry of a group as insertEntry takes it, with its id and its chain of events already built. */
export type GroupedNewEntry = NewEntry & { id: number; events: EventInsertRow[] };

/**
 * Several new entries, with their items, payments, tags, events and outbound events, in ONE statement; the rows
 * in id order. No rule checks here: core/create-together.ts holds them.
 */
export async function insertEntriesTogether(
  tx: Transaction,
  entries: GroupedNewEntry[],
  now: Date,
  outbox: InsertOutbox,
): Promise<EntryRow[]> {
  const rows = entries.map((e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    project_id: e.projectId,
    entry_source_id: e.entrySourceId,
    entry_type: e.entryType,
    entry_status: 'PENDING',
    base_currency: e.baseCurrency,
    amount_cents: e.amountCents,
    from_party_id: e.fromPartyId ?? null,
    to_party_id: e.toPartyId ?? null,
    entry_date: e.entryDate,
    description: e.description ?? null,
    reference: e.reference ?? null,
    exclude_from_sync: e.excludeFromSync ?? false,
    category_id: e.categoryId ?? null,
    created_by: e.createdBy,
    created_at: now,
    updated_at: now,
    fx_rate: e.valuation?.fxRate ?? null,
    fx_rate_date: e.valuation?.fxRateDate ?? null,
    amount_base_cents: e.valuation?.amountBaseCents ?? null,
    integration_id: null,
    external_id: null,
  }));
  const items = entries.flatMap((e) =>
    (e.items ?? []).map((it, position) => ({
      entry_id: e.id,
      workspace_id: e.workspaceId,
      position,
      description: it.description,
      quantity: it.quantity,
      unit_amount_cents: it.unitAmountCents,
      amount_cents: it.amountCents,
      category_id: it.categoryId ?? null,
    })),
  );
  const payments = entries.flatMap((e) =>
    (e.transactions ?? []).map((p) => ({
      entry_id: e.id,
      workspace_id: e.workspaceId,
      transaction_date: p.transactionDate,
      amount_cents: p.amountCents,
      method: p.method ?? null,
      external_ref: p.externalRef ?? null,
    })),
  );
  const tags = entries.flatMap((e) =>
    [...new Set(e.tagIds ?? [])].map((tagId) => ({ entry_id: e.id, tag_id: tagId, workspace_id: e.workspaceId })),
  );
  const events = entries.flatMap((e) => e.events);
  const values = [rows, items, payments, tags, events].map((v) => JSON.stringify(v));
  return preparedQuery<EntryRow>(tx, 'entries_insert_many', (statement ??= insertManySql(outbox.ctes)), [...values, outbox.json, now]);
}

/** The statement's text, built once (a name must always carry the same text). */
let statement: string | undefined;
