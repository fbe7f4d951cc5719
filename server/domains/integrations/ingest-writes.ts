import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { postgresErrorOf } from '../../lib/errors.js';
import type { EntryRow } from '../entries/entry-rows.js';
import type { IngestItem } from '../../../shared/contracts/integrations.js';
import type { IngestCaller } from './ingest-auth.js';

export type IngestedRow = EntryRow & { external_id: string };

/** externalId → id of the entries this integration already holds among `externalIds`. */
export async function existingEntryIds(tx: Transaction, integrationId: string, externalIds: string[]): Promise<Map<string, number>> {
  if (externalIds.length === 0) return new Map();
  const rows = await db().query<{ id: number; external_id: string }>(
    `SELECT id, external_id FROM entries WHERE integration_id = $1 AND external_id = ANY($2::text[])`,
    { bind: [integrationId, externalIds], type: QueryTypes.SELECT, transaction: tx },
  );
  return new Map(rows.map((r) => [r.external_id, r.id]));
}

export type EntryToWrite = { item: IngestItem; fromPartyId: number | null; toPartyId: number | null };

const UNIQUE_VIOLATION = '23505';
const EXTERNAL_ID_KEY = 'entries_integration_external_key';

const insertSql = (onConflict: string) =>
  `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, entry_status, base_currency, amount_cents,
                        from_party_id, to_party_id, entry_date, description, reference, created_by, created_at, updated_at,
                        integration_id, external_id)
   SELECT $1, r.project_id, $2, r.entry_type, 'PENDING', r.base_currency, r.amount_cents, r.from_party_id, r.to_party_id,
          r.entry_date, r.description, r.reference, NULL, $3::timestamptz, $3::timestamptz, $4::uuid, r.external_id
     FROM jsonb_to_recordset($5::jsonb) AS r(external_id text, project_id int, entry_type text, base_currency text,
          amount_cents bigint, from_party_id int, to_party_id int, entry_date date, description text, reference text)
    ORDER BY r.external_id COLLATE "C"
   ${onConflict}
   RETURNING *`;

const lostRace = (err: unknown): boolean => {
  const pgError = postgresErrorOf(err);
  return pgError?.code === UNIQUE_VIOLATION && pgError.constraint === EXTERNAL_ID_KEY;
};

/**
 * One multi-row INSERT for the whole batch. The unique (integration_id, external_id) index
 * decides idempotency. The caller has already dropped the externalIds committed before, so the
 * plain INSERT (in a savepoint) nearly always succeeds; it is cheaper than ON CONFLICT's
 * speculative insertion. When a racing request wrote one of the rows first, the savepoint is
 * rolled back and the batch goes again with ON CONFLICT DO NOTHING: those rows are simply
 * absent from the returned rows. Rows go in externalId order, so overlapping batches take
 * their index locks in the same order and do not deadlock.
 */
export async function insertIngestedEntries(tx: Transaction, caller: IngestCaller, entries: EntryToWrite[]): Promise<IngestedRow[]> {
  if (entries.length === 0) return [];
  const rows = entries.map(({ item, fromPartyId, toPartyId }) => ({
    external_id: item.externalId,
    project_id: item.projectId,
    entry_type: item.entryType,
    base_currency: item.baseCurrency,
    amount_cents: item.amountCents,
    from_party_id: fromPartyId,
    to_party_id: toPartyId,
    entry_date: item.entryDate,
    description: item.description ?? null,
    reference: item.reference ?? null,
  }));
  const bind = [caller.workspaceId, caller.entrySourceId, clock.now(), caller.id, JSON.stringify(rows)];
  try {
    return await db().transaction({ transaction: tx }, (savepoint) =>
      db().query<IngestedRow>(insertSql(''), { bind, type: QueryTypes.SELECT, transaction: savepoint }),
    );
  } catch (err) {
    if (!lostRace(err)) throw err;
    return db().query<IngestedRow>(insertSql('ON CONFLICT (integration_id, external_id) WHERE integration_id IS NOT NULL DO NOTHING'), {
      bind,
      type: QueryTypes.SELECT,
      transaction: tx,
    });
  }
}

/** All entry↔tag links of the batch in one INSERT. */
export async function insertEntryTags(tx: Transaction, workspaceId: number, links: { entryId: number; tagId: number }[]): Promise<void> {
  if (links.length === 0) return;
  await db().query(
    `INSERT INTO entry_tags (entry_id, tag_id, workspace_id)
     SELECT l.entry_id, l.tag_id, $1 FROM unnest($2::bigint[], $3::int[]) AS l(entry_id, tag_id)`,
    { bind: [workspaceId, links.map((l) => l.entryId), links.map((l) => l.tagId)], transaction: tx },
  );
}
