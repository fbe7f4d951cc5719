import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { conflictColumns } from '../../../db/distributed.js';
import { clock } from '../../../lib/clock.js';
import { postgresErrorOf } from '../../../lib/errors.js';
import type { EntryType } from '../../../../shared/contracts/entries.js';
import type { EntryRow } from '../entry-rows.js';
import { insertEntriesSql } from '../entry-writes.js';
import { recordEvents, type EventActor } from '../audit-events.js';
import { reactions, type NewEntryFields } from './reactions.js';
import { applyEffects } from './change.js';
import { postEntries } from '../../books/index.js';

export type IngestedRow = EntryRow & { external_id: string };

/** One item of an ingest batch after its per-item rules passed (parties and tags already resolved to ids). */
export type IngestedDraft = {
  externalId: string;
  projectId: number;
  entryType: EntryType;
  amountCents: number;
  baseCurrency: string;
  entryDate: string;
  description: string | null;
  reference: string | null;
  fromPartyId: number | null;
  toPartyId: number | null;
  tagIds: number[];
  categoryId?: string | null;
  excludeFromSync?: boolean;
};

export type IngestSource = { workspaceId: number; entrySourceId: number; integrationId: string };

const UNIQUE_VIOLATION = '23505';
const EXTERNAL_ID_KEY = 'entries_integration_external_key';

/** The batch as the row source of the one insert of entries (entry-writes.ts), in externalId order. */
const insertSql = (onConflict: string) =>
  insertEntriesSql(
    `(SELECT nextval(pg_get_serial_sequence('entries', 'id'))::bigint AS id, $1::int AS workspace_id, j.project_id,
             $2::int AS entry_source_id, j.entry_type, 'PENDING'::text AS entry_status, j.base_currency, j.amount_cents,
             j.from_party_id, j.to_party_id, j.entry_date, j.description, j.reference,
             COALESCE(j.exclude_from_sync, false) AS exclude_from_sync, j.category_id, NULL::uuid AS created_by,
             $3::timestamptz AS created_at, $3::timestamptz AS updated_at, j.fx_rate, j.fx_rate_date, j.amount_base_cents,
             $4::uuid AS integration_id, j.external_id, NULL::uuid AS recurring_entry_id, NULL::date AS occurrence_date
        FROM jsonb_to_recordset($5::jsonb) AS j(external_id text, project_id int, entry_type text, base_currency text,
             amount_cents bigint, from_party_id int, to_party_id int, entry_date date, description text, reference text,
             category_id uuid, exclude_from_sync boolean, fx_rate text, fx_rate_date date, amount_base_cents bigint)
       ORDER BY j.external_id COLLATE "C") r`,
    onConflict,
  );

const lostRace = (err: unknown): boolean => {
  const pgError = postgresErrorOf(err);
  return pgError?.code === UNIQUE_VIOLATION && pgError.constraint === EXTERNAL_ID_KEY;
};

/**
 * The new entries of an ingest batch (CONTRACT §11), set-based: the rules of §16 on the whole
 * batch in memory, one multi-row INSERT, their tags, their ENTRY_CREATED (and RULE_APPLIED) events
 * and the reactions to new entries. The unique
 * (integration_id, external_id) index decides idempotency. The caller has already dropped the
 * externalIds committed before, so the plain INSERT (in a savepoint) nearly always succeeds; it
 * is cheaper than ON CONFLICT's speculative insertion. When a racing request wrote one of the
 * rows first, the savepoint is rolled back and the batch goes again with ON CONFLICT DO NOTHING:
 * those rows are simply absent from the returned rows. Rows go in externalId order, so
 * overlapping batches take their index locks in the same order and do not deadlock.
 */
export async function insertIngestedRows(
  tx: Transaction,
  source: IngestSource,
  given: IngestedDraft[],
  actor: EventActor,
): Promise<IngestedRow[]> {
  if (given.length === 0) return [];
  // the rules of CONTRACT §16 (trigger INGEST), evaluated in memory for the whole batch
  const ruled = await reactions().entriesBeforeCreate(tx, source.workspaceId, 'INGEST', given.map(fieldsOf), {});
  const drafts = given.map((d, i) => ({ ...d, ...ruled.drafts[i] }));
  const rows = await insertRows(tx, source, drafts);
  const byExternalId = new Map(rows.map((r) => [r.external_id, r]));
  await insertTags(
    tx,
    source.workspaceId,
    drafts.flatMap((d) => {
      const row = byExternalId.get(d.externalId);
      return row ? [...new Set(d.tagIds)].map((tagId) => ({ entryId: row.id, tagId })) : [];
    }),
  );
  // ENTRY_CREATED of every row, then (chained after it) the RULE_APPLIED events of the rules that ran on it
  const ruleEvents = drafts.flatMap((d, i) => {
    const row = byExternalId.get(d.externalId);
    return row ? ruled.events[i].map((e) => ({ entry: row, ...e })) : [];
  });
  await recordEvents(tx, [...rows.map(createdEvent), ...ruleEvents], actor, { newEntries: true });
  let current = rows;
  if (
    rows.length > 0 &&
    (await applyEffects(
      tx,
      await ruled.afterInsert(
        tx,
        drafts.map((d) => byExternalId.get(d.externalId)),
      ),
      actor,
    ))
  ) {
    current = await reloadRows(tx, rows);
  }
  if (current.length > 0 && (await applyEffects(tx, await reactions().entriesCreated(tx, current, actor), actor))) {
    current = await reloadRows(tx, current);
  }
  // CONTRACT §23: the books post what the new entries post, one statement for the batch
  await postEntries(tx, current);
  return current;
}

const fieldsOf = (d: IngestedDraft): NewEntryFields => ({
  projectId: d.projectId,
  entryType: d.entryType,
  amountCents: d.amountCents,
  baseCurrency: d.baseCurrency,
  fromPartyId: d.fromPartyId,
  toPartyId: d.toPartyId,
  description: d.description,
  reference: d.reference,
  categoryId: d.categoryId ?? null,
  tagIds: [...new Set(d.tagIds)],
  excludeFromSync: d.excludeFromSync ?? false,
});

/** The rows as they are now in this transaction (a rule requested a document: completeness was recomputed). */
async function reloadRows(tx: Transaction, rows: IngestedRow[]): Promise<IngestedRow[]> {
  return db().query<IngestedRow>('SELECT * FROM entries WHERE id = ANY($1::bigint[]) ORDER BY id', {
    bind: [rows.map((r) => r.id)],
    type: QueryTypes.SELECT,
    transaction: tx,
  });
}

async function insertRows(tx: Transaction, source: IngestSource, drafts: IngestedDraft[]): Promise<IngestedRow[]> {
  // CONTRACT §17: the whole batch valued in one statement
  const valuations = await reactions().valueEntries(
    tx,
    source.workspaceId,
    drafts.map((d) => ({ currency: d.baseCurrency, entryDate: d.entryDate, amountCents: d.amountCents })),
  );
  const rows = drafts.map((d, i) => ({
    external_id: d.externalId,
    project_id: d.projectId,
    entry_type: d.entryType,
    base_currency: d.baseCurrency,
    amount_cents: d.amountCents,
    from_party_id: d.fromPartyId,
    to_party_id: d.toPartyId,
    entry_date: d.entryDate,
    description: d.description,
    reference: d.reference,
    category_id: d.categoryId ?? null,
    exclude_from_sync: d.excludeFromSync ?? false,
    fx_rate: valuations[i].fxRate,
    fx_rate_date: valuations[i].fxRateDate,
    amount_base_cents: valuations[i].amountBaseCents,
  }));
  const bind = [source.workspaceId, source.entrySourceId, clock.now(), source.integrationId, JSON.stringify(rows)];
  try {
    return await db().transaction({ transaction: tx }, (savepoint) =>
      db().query<IngestedRow>(insertSql(''), { bind, type: QueryTypes.SELECT, transaction: savepoint }),
    );
  } catch (err) {
    if (!lostRace(err)) throw err;
    const key = await conflictColumns('integration_id, external_id');
    return db().query<IngestedRow>(insertSql(`ON CONFLICT ${key} WHERE integration_id IS NOT NULL DO NOTHING`), {
      bind,
      type: QueryTypes.SELECT,
      transaction: tx,
    });
  }
}

/** All entry↔tag links of the batch in one INSERT, with their ranks (the entries are new: migration 0021 keeps them as they are). */
async function insertTags(tx: Transaction, workspaceId: number, links: { entryId: number; tagId: number }[]): Promise<void> {
  if (links.length === 0) return;
  await db().query(
    `INSERT INTO entry_tags (entry_id, tag_id, workspace_id, tag_rank, tag_count)
     SELECT l.entry_id, l.tag_id, $1, row_number() OVER w, count(*) OVER w
       FROM unnest($2::bigint[], $3::int[]) AS l(entry_id, tag_id)
     WINDOW w AS (PARTITION BY l.entry_id ORDER BY l.tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)`,
    { bind: [workspaceId, links.map((l) => l.entryId), links.map((l) => l.tagId)], transaction: tx },
  );
}

const createdEvent = (row: IngestedRow) => ({
  entry: row,
  kind: 'ENTRY_CREATED' as const,
  data: {
    entryType: row.entry_type,
    amountCents: row.amount_cents,
    baseCurrency: row.base_currency.trim(),
    entryDate: row.entry_date,
    projectId: row.project_id,
    externalId: row.external_id,
  },
});
