import type { Transaction } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { EntryRow } from './entry-rows.js';
import { ENTRY_COLUMNS, insertEntriesSql, itemRows, paymentRows, type InsertOutbox, type NewEntry } from './entry-writes.js';
import { insertEventsSql, type EventInsertRow } from './audit-events.js';
import type { NewEntryPosting } from '../books/index.js';

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
 * The insert of new entries, with their items, payments, tags, events and outbound events, written once for both
 * shapes: `s` names where each part's rows come from (SQL expressions and FROM clauses), bound parameters for a
 * lone entry (insertOneSql) or JSON arrays for any number (insertManySql). `entryOf(alias)` is a part row's
 * entry_id and workspace_id.
 */
const insertSql = (
  outbox: InsertOutbox['ctes'],
  posting: NewEntryPosting | undefined,
  s: {
    entries: string;
    entryOf: (alias: string) => { id: string; ws: string };
    items: string;
    payments: string;
    tags: { tagId: string; rank: string; count: string; from: string };
    events: string;
    outbox: { events: string; now: string };
    orderBy: string;
  },
) => `
WITH entry AS (
  ${insertEntriesSql(s.entries)}
), items AS (
  INSERT INTO entry_items (entry_id, workspace_id, position, description, quantity, unit_amount_cents, amount_cents, category_id)
  SELECT ${s.entryOf('i').id}, ${s.entryOf('i').ws}, i.position, i.description, i.quantity, i.unit_amount_cents, i.amount_cents, i.category_id
    ${s.items}
  RETURNING entry_id
), payments AS (
  INSERT INTO entry_transactions (entry_id, workspace_id, transaction_date, amount_cents, method, external_ref)
  SELECT ${s.entryOf('t').id}, ${s.entryOf('t').ws}, t.transaction_date, t.amount_cents, t.method, t.external_ref
    ${s.payments}
), tags AS (
  INSERT INTO entry_tags (entry_id, tag_id, workspace_id, tag_rank, tag_count)
  SELECT ${s.entryOf('g').id}, ${s.tags.tagId}, ${s.entryOf('g').ws}, ${s.tags.rank}, ${s.tags.count}
    ${s.tags.from}
), event AS (
  ${insertEventsSql(s.events)}
), ${outbox(s.outbox.events, s.outbox.now)}${posting ? `, ${posting.ctes}` : ''}
SELECT entry.*${posting ? `, ${posting.postedColumn}` : ''} FROM entry ${s.orderBy}`;

/**
 * The statement of every create (core/create.ts: one request, or a group of POST /entries), for any number of entries:
 * the entries ($1: their rows as written, in id order; columns beyond ENTRY_COLUMNS are ignored), their items ($2), payments ($3), tags with their ranks ($4), their events ($5)
 * and the outbox CTEs over $6 and $7 (now). Every parameter is a JSON array; one named statement whatever the size.
 */
const insertManySql = (outbox: InsertOutbox['ctes'], posting: NewEntryPosting | undefined) =>
  insertSql(outbox, posting, {
    entries: `(SELECT * FROM jsonb_to_recordset($1::jsonb) AS j(${ENTRY_COLUMNS.map((c) => `${c} ${COLUMN_TYPES[c]}`).join(', ')}) ORDER BY j.id) r`,
    entryOf: (alias) => ({ id: `${alias}.entry_id`, ws: `${alias}.workspace_id` }),
    items: `FROM jsonb_to_recordset($2::jsonb) AS i(entry_id bigint, workspace_id int, position int, description text, quantity numeric,
         unit_amount_cents bigint, amount_cents bigint, category_id uuid)`,
    payments: `FROM jsonb_to_recordset($3::jsonb) AS t(entry_id bigint, workspace_id int, transaction_date date, amount_cents bigint, method text,
         external_ref text)`,
    tags: {
      tagId: 'g.tag_id',
      rank: 'row_number() OVER w',
      count: 'count(*) OVER w',
      from: `FROM jsonb_to_recordset($4::jsonb) AS g(entry_id bigint, tag_id int, workspace_id int)
  WINDOW w AS (PARTITION BY g.entry_id ORDER BY g.tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)`,
    },
    events: '$5',
    outbox: { events: '$6', now: '$7::timestamptz' },
    orderBy: 'ORDER BY id',
  });

/**
 * The same statement for a group of one, with the entry's values and workspace bound as parameters (so Citus
 * routes it to the workspace's shard group, CONTRACT §24): $1 … $19 and $24, $25 its columns, $20 items,
 * $21 payments, $22 tag ids, $23 events, the outbox CTEs over $26.
 */
const insertOneSql = (outbox: InsertOutbox['ctes'], posting: NewEntryPosting | undefined) =>
  insertSql(outbox, posting, {
    entries: `(VALUES ($1::bigint, $2::int, $3::int, $4::int, $5::text, 'PENDING', $6::text, $7::bigint, $8::int, $9::int, $10::date, $11::text,
              $12::text, $13::boolean, $14::uuid, $15::uuid, $16::timestamptz, $16::timestamptz, $17::text, $18::date, $19::bigint,
              NULL::uuid, NULL::text, $24::uuid, $25::date)) AS r(${ENTRY_COLUMNS.join(', ')})`,
    entryOf: () => ({ id: '$1::bigint', ws: '$2::int' }),
    items: `FROM jsonb_to_recordset($20::jsonb)
      AS i(position int, description text, quantity numeric, unit_amount_cents bigint, amount_cents bigint, category_id uuid)`,
    payments: 'FROM jsonb_to_recordset($21::jsonb) AS t(transaction_date date, amount_cents bigint, method text, external_ref text)',
    tags: {
      tagId: 'tag_id',
      rank: 'row_number() OVER (ORDER BY tag_id)',
      count: 'count(*) OVER ()',
      from: 'FROM unnest($22::int[]) AS tag_id',
    },
    events: '$23',
    outbox: { events: '$26', now: '$16::timestamptz' },
    orderBy: '',
  });

/** A new entry: its row as the insert writes it (core/create.ts expectedRow), its parts and its events. */
export type GroupedNewEntry = { row: EntryRow } & Pick<NewEntry, 'items' | 'transactions' | 'tagIds'> & { events: EventInsertRow[] };

/** The new rows in id order, and the ids of those the books posted in the same statement (NewEntryPosting). */
export type InsertedEntries = { rows: EntryRow[]; postedIds: Set<number> };

/**
 * New entries, with their items, payments, tags, events and outbound events, in ONE statement (insertOneSql for
 * one entry), and with `posting` the ENTRY transactions of those it posts. No rule checks here: core/create.ts
 * holds them.
 */
export async function insertEntriesTogether(
  tx: Transaction,
  entries: GroupedNewEntry[],
  now: Date,
  outbox: InsertOutbox,
  posting?: NewEntryPosting,
): Promise<InsertedEntries> {
  if (entries.length === 1) return inserted(await insertOne(tx, entries[0], now, outbox, posting));
  const of = (e: GroupedNewEntry) => ({ entry_id: e.row.id, workspace_id: e.row.workspace_id });
  const items = entries.flatMap((e) => itemRows(e).map((item) => ({ ...of(e), ...item })));
  const payments = entries.flatMap((e) => paymentRows(e).map((payment) => ({ ...of(e), ...payment })));
  const tags = entries.flatMap((e) => [...new Set(e.tagIds ?? [])].map((tagId) => ({ ...of(e), tag_id: tagId })));
  const events = entries.flatMap((e) => e.events);
  const values = [entries.map((e) => e.row), items, payments, tags, events].map((v) => JSON.stringify(v));
  const { name, text } = statementOf('entries_insert_many', posting, () => insertManySql(outbox.ctes, posting));
  return inserted(await preparedQuery<InsertedRow>(tx, name, text, [...values, outbox.json, now]));
}

type InsertedRow = EntryRow & { books_posted?: boolean };

function inserted(rows: InsertedRow[]): InsertedEntries {
  const postedIds = new Set<number>();
  for (const row of rows) {
    if (row.books_posted) postedIds.add(Number(row.id));
    delete row.books_posted;
  }
  return { rows, postedIds };
}

async function insertOne(tx: Transaction, e: GroupedNewEntry, now: Date, outbox: InsertOutbox, posting?: NewEntryPosting) {
  const r = e.row;
  const values: unknown[] = [
    r.id,
    r.workspace_id,
    r.project_id,
    r.entry_source_id,
    r.entry_type,
    r.base_currency,
    r.amount_cents,
    r.from_party_id,
    r.to_party_id,
    r.entry_date,
    r.description,
    r.reference,
    r.exclude_from_sync,
    r.category_id,
    r.created_by,
    now,
    r.fx_rate,
    r.fx_rate_date,
    r.amount_base_cents,
    JSON.stringify(itemRows(e)),
    JSON.stringify(paymentRows(e)),
    [...new Set(e.tagIds ?? [])],
    JSON.stringify(e.events),
    r.recurring_entry_id,
    r.occurrence_date,
    outbox.json,
  ];
  const { name, text } = statementOf('entries_insert_one', posting, () => insertOneSql(outbox.ctes, posting));
  return preparedQuery<InsertedRow>(tx, name, text, values);
}

/** The statements' texts, built once per name (a name must always carry the same text): with and without posting. */
const statements = new Map<string, string>();

function statementOf(base: string, posting: NewEntryPosting | undefined, build: () => string): { name: string; text: string } {
  const name = posting ? `${base}_posted` : base;
  let text = statements.get(name);
  if (text === undefined) statements.set(name, (text = build()));
  return { name, text };
}
