import { notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { EntryDetail } from '../../../shared/contracts/entries.js';
import type { DocumentObject } from '../../../shared/contracts/documents.js';
import type { PartyObject } from '../../../shared/contracts/parties.js';
import { presentEntry, type EntryRow } from './entry-rows.js';
import { preparedRows } from '../../db/prepared.js';
import { ReadBatch } from '../../db/read-batch.js';
import { onCitus, sameWorkspace } from '../../db/distributed.js';

type Parts = Pick<EntryDetail, 'items' | 'transactions' | 'tags'>;
type DocumentJson = Omit<DocumentObject, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };
type PartyJson = Omit<PartyObject, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };

type DetailRow = EntryRow & {
  detail_items: Parts['items'];
  detail_transactions: Parts['transactions'];
  detail_tags: Parts['tags'];
  detail_documents: DocumentJson[];
  detail_from_party: PartyJson | null;
  detail_to_party: PartyJson | null;
};

const partyJson = (column: string, same: (alias: string) => string) => `(SELECT json_build_object(
    'id', p.id, 'workspaceId', p.workspace_id, 'name', p.name, 'partyType', p.party_type, 'country', p.country,
    'email', p.email, 'taxId', p.tax_id, 'createdAt', p.created_at, 'updatedAt', p.updated_at)
  FROM parties p WHERE p.id = e.${column}${same('p')})`;

/**
 * The entries with their items, payments, tags, documents and parties: one statement, one round
 * trip (the detail is the most requested read of the API), prepared once per connection, for every detail
 * asked for together (entryDetailReads below).
 * The documents and parties are presented by the statement itself, as CONTRACT §6 and §4 show them (the storage key
 * never leaves it), so the ledger core imports neither domain (a read of their tables, not of their code).
 * Whether the actor may see the entry is decided on the row it returns (workspace and
 * project), so a 404 for an unseen entry costs no second round trip either. The entry's columns
 * are named (no `e.*`): a prepared statement whose result columns change under it (a migration
 * adding a column) would fail with "cached plan must not change result type" until reconnection.
 */
const detailSql = (same: (alias: string) => string) => `
SELECT
  e.id, e.workspace_id, e.project_id, e.entry_source_id, e.entry_type, e.entry_status, e.status_reason,
  e.base_currency, e.amount_cents, e.from_party_id, e.to_party_id, e.entry_date, e.description, e.reference,
  e.is_reconciled, e.reconciled_at, e.reconciled_by, e.exclude_from_sync, e.is_complete, e.category_id,
  e.created_by, e.created_at, e.updated_at, e.fx_rate, e.fx_rate_date, e.amount_base_cents, e.recurring_entry_id, e.occurrence_date,
  COALESCE((SELECT json_agg(json_build_object(
      'id', i.id, 'description', i.description, 'quantity', i.quantity::float8, 'unitAmountCents', i.unit_amount_cents,
      'amountCents', i.amount_cents, 'categoryId', i.category_id) ORDER BY i.position)
    FROM entry_items i WHERE i.entry_id = e.id${same('i')}), '[]') AS detail_items,
  COALESCE((SELECT json_agg(json_build_object(
      'id', t.id, 'transactionDate', t.transaction_date, 'amountCents', t.amount_cents, 'method', t.method,
      'externalRef', t.external_ref) ORDER BY t.transaction_date, t.id)
    FROM entry_transactions t WHERE t.entry_id = e.id${same('t')}), '[]') AS detail_transactions,
  COALESCE((SELECT json_agg(json_build_object('id', g.id, 'name', g.name, 'color', g.color) ORDER BY g.name, g.id)
    FROM entry_tags et JOIN tags g ON g.id = et.tag_id${same('g')} WHERE et.entry_id = e.id${same('et')}), '[]') AS detail_tags,
  COALESCE((SELECT json_agg(json_build_object(
      'id', d.id, 'entryId', d.entry_id, 'documentName', d.document_name, 'documentType', d.document_type, 'status', d.status,
      'mimeType', d.mime_type, 'fileSize', d.file_size, 'sha256', d.sha256, 'uploadedBy', d.uploaded_by, 'approvedBy', d.approved_by,
      'comment', d.comment, 'rejectionReason', d.rejection_reason, 'createdAt', d.created_at, 'updatedAt', d.updated_at)
      ORDER BY d.created_at, d.id)
    FROM entry_documents d WHERE d.entry_id = e.id${same('d')}), '[]') AS detail_documents,
  ${partyJson('from_party_id', same)} AS detail_from_party,
  ${partyJson('to_party_id', same)} AS detail_to_party
FROM entries e WHERE e.id = ANY ($1::bigint[])`;

/** Plain PostgreSQL: the statement as it always was (each subquery by the entry's id). */
const DETAIL_SQL = detailSql(() => '');
/**
 * Citus: every subquery also names the entry's workspace (`x.workspace_id = e.workspace_id`), the
 * distribution column of every table it reads, so each is co-located with the entry's row and the
 * statement is pushed down to the shards whole (without it Citus refuses the correlated subqueries:
 * "complex joins are only supported when all distributed tables are co-located and joined on their
 * distribution columns"). The ids may be of several workspaces (a batch), so it runs on every shard.
 */
const DETAIL_SQL_CITUS = detailSql((alias) => sameWorkspace(alias));

const iso = (text: string) => new Date(text).toISOString();

function presentPartyJson(p: PartyJson | null): PartyObject | null {
  return p && { ...p, country: p.country?.trim() ?? null, createdAt: iso(p.createdAt), updatedAt: iso(p.updatedAt) };
}

/**
 * The details asked for in one turn of the event loop (or while two reads are in flight) are read by one
 * statement (server/db/read-batch.ts): under load that is one round trip, one wake-up of PostgreSQL and one
 * plan execution for several requests instead of one each.
 */
export const entryDetailReads = new ReadBatch<number, DetailRow>({
  lanes: 2,
  maxKeys: 32,
  load: async (ids) => {
    const rows = (await onCitus())
      ? await preparedRows<DetailRow>('entry-detail-v3-citus', DETAIL_SQL_CITUS, [ids])
      : await preparedRows<DetailRow>('entry-detail-v3', DETAIL_SQL, [ids]);
    return new Map(rows.map((row) => [Number(row.id), row]));
  },
});

/** The entry detail of CONTRACT §5 for an actor who may see the entry, or 404. */
export async function loadEntryDetail(actor: Actor, id: number): Promise<EntryDetail> {
  const row = await entryDetailReads.get(id);
  if (!row) throw notFound('Entry');
  scope.projectObject(actor, { workspaceId: row.workspace_id, projectId: row.project_id }, 'Entry');
  return {
    ...presentEntry(row),
    items: row.detail_items,
    transactions: row.detail_transactions,
    tags: row.detail_tags,
    documents: row.detail_documents.map((d) => ({ ...d, createdAt: iso(d.createdAt), updatedAt: iso(d.updatedAt) })),
    parties: { from: presentPartyJson(row.detail_from_party), to: presentPartyJson(row.detail_to_party) },
  };
}
