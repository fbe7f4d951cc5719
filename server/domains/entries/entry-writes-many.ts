import type { Transaction } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { EntryRow } from './entry-rows.js';
import { ENTRY_COLUMNS, insertEntriesSql, itemRows, paymentRows, type InsertOutbox, type NewEntry } from './entry-writes.js';
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
  recurring_entry_id: 'uuid',
  occurrence_date: 'date',
};

/**
 * insertEntry's statement for several new entries at once (a group of POST /entries, core/create-together.ts):
 * the entries ($1: their rows as written, in id order; columns beyond ENTRY_COLUMNS are ignored), their items ($2), payments ($3), tags with their ranks ($4), their events ($5)
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

/** A new entry of a group: its row as the insert writes it (core/create.ts expectedRow), its parts and its events. */
export type GroupedNewEntry = { row: EntryRow } & Pick<NewEntry, 'items' | 'transactions' | 'tagIds'> & { events: EventInsertRow[] };

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
  const of = (e: GroupedNewEntry) => ({ entry_id: e.row.id, workspace_id: e.row.workspace_id });
  const items = entries.flatMap((e) => itemRows(e).map((item) => ({ ...of(e), ...item })));
  const payments = entries.flatMap((e) => paymentRows(e).map((payment) => ({ ...of(e), ...payment })));
  const tags = entries.flatMap((e) => [...new Set(e.tagIds ?? [])].map((tagId) => ({ ...of(e), tag_id: tagId })));
  const events = entries.flatMap((e) => e.events);
  const values = [entries.map((e) => e.row), items, payments, tags, events].map((v) => JSON.stringify(v));
  return preparedQuery<EntryRow>(tx, 'entries_insert_many', (statement ??= insertManySql(outbox.ctes)), [...values, outbox.json, now]);
}

/** The statement's text, built once (a name must always carry the same text). */
let statement: string | undefined;
