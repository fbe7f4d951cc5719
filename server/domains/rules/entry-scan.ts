import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { onCitus, sameWorkspace } from '../../db/distributed.js';
import type { EntryStatus, EntryType } from '../../../shared/contracts/entries.js';
import { ledger } from '../entries/index.js';
import type { RuleContext, RuleDraft } from './engine.js';

/** An existing entry as rules read it, with what preview and apply need to judge it. */
export type ScannedEntry = {
  id: number;
  workspaceId: number;
  status: EntryStatus;
  entryDate: string;
  inClosedPeriod: boolean;
  documents: { name: string; type: string }[];
  draft: RuleDraft;
  ctx: RuleContext;
};

type ScanRow = {
  id: number;
  workspace_id: number;
  entry_status: EntryStatus;
  entry_type: EntryType;
  amount_cents: number;
  base_currency: string;
  project_id: number;
  from_party_id: number | null;
  to_party_id: number | null;
  description: string | null;
  reference: string | null;
  category_id: string | null;
  exclude_from_sync: boolean;
  entry_date: string;
  from_party_name: string | null;
  to_party_name: string | null;
  tag_ids: number[];
  documents: { name: string; type: string }[];
  in_closed_period: boolean;
};

export type ScanFilter = {
  workspaceId: number;
  fromDate?: string;
  toDate?: string;
  /** leave out VOIDED and CANCELLED entries */
  liveOnly: boolean;
};

export type ScanCursor = { entryDate: string; id: number };

export const SCAN_CHUNK = 500;

/**
 * On Citus (`citus`) every subquery and join also names the entry's workspace, the distribution column, so the statement
 * runs whole on the workspace's shard group; and "in a closed period" is read in the statement itself rather than by
 * closed_period_name(), whose own read of accounting_periods would run inside a query on a shard, which Citus refuses.
 * Plain PostgreSQL keeps the statement as it was.
 */
const SCAN_SQL = (opts: { liveOnly: boolean; idsOnly: boolean; citus: boolean }) => {
  const same = (alias: string) => (opts.citus ? sameWorkspace(alias) : '');
  const closed = opts.citus
    ? `EXISTS (SELECT 1 FROM accounting_periods p WHERE p.workspace_id = e.workspace_id AND p.status = 'CLOSED'
                 AND p.start_date <= e.entry_date AND p.end_date >= e.entry_date)`
    : 'closed_period_name(e.workspace_id, e.entry_date) IS NOT NULL';
  return `
SELECT e.id, e.workspace_id, e.entry_status, e.entry_type, e.amount_cents, e.base_currency, e.project_id, e.from_party_id,
       e.to_party_id, e.description, e.reference, e.category_id, e.exclude_from_sync, e.entry_date,
       fp.name AS from_party_name, tp.name AS to_party_name,
       COALESCE((SELECT array_agg(t.tag_id ORDER BY t.tag_id) FROM entry_tags t WHERE t.entry_id = e.id${same('t')}), '{}') AS tag_ids,
       COALESCE((SELECT jsonb_agg(jsonb_build_object('name', d.document_name, 'type', d.document_type))
                   FROM entry_documents d WHERE d.entry_id = e.id${same('d')}), '[]') AS documents,
       ${closed} AS in_closed_period
  FROM entries e
  LEFT JOIN parties fp ON fp.id = e.from_party_id${same('fp')}
  LEFT JOIN parties tp ON tp.id = e.to_party_id${same('tp')}
 WHERE e.workspace_id = $1
   ${
     opts.idsOnly
       ? 'AND e.id = ANY($2::bigint[])'
       : `AND ($2::date IS NULL OR e.entry_date >= $2::date) AND ($3::date IS NULL OR e.entry_date <= $3::date)
   AND ($4::date IS NULL OR (e.entry_date, e.id) < ($4::date, $5::bigint))`
   }
   ${opts.liveOnly ? "AND e.entry_status NOT IN ('VOIDED', 'CANCELLED')" : ''}
 ORDER BY e.entry_date DESC, e.id DESC
 ${opts.idsOnly ? '' : `LIMIT ${SCAN_CHUNK}`}`;
};

function scanned(r: ScanRow): ScannedEntry {
  const partyNames = new Map<number, string>();
  if (r.from_party_id !== null && r.from_party_name !== null) partyNames.set(r.from_party_id, r.from_party_name);
  if (r.to_party_id !== null && r.to_party_name !== null) partyNames.set(r.to_party_id, r.to_party_name);
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    status: r.entry_status,
    entryDate: r.entry_date,
    inClosedPeriod: r.in_closed_period,
    documents: r.documents,
    draft: {
      entryType: r.entry_type,
      amountCents: r.amount_cents,
      baseCurrency: r.base_currency.trim(),
      projectId: r.project_id,
      fromPartyId: r.from_party_id,
      toPartyId: r.to_party_id,
      description: r.description,
      reference: r.reference,
      categoryId: r.category_id,
      tagIds: r.tag_ids.map(Number),
      excludeFromSync: r.exclude_from_sync,
    },
    ctx: { partyNames },
  };
}

/**
 * The entries of a workspace (in a date range), newest entryDate first, a chunk at a time: memory
 * stays flat however many entries the workspace holds.
 */
export async function* scanEntries(filter: ScanFilter): AsyncGenerator<ScannedEntry[]> {
  let after: ScanCursor | undefined;
  for (;;) {
    const rows = await db().query<ScanRow>(SCAN_SQL({ liveOnly: filter.liveOnly, idsOnly: false, citus: await onCitus() }), {
      bind: [filter.workspaceId, filter.fromDate ?? null, filter.toDate ?? null, after?.entryDate ?? null, after?.id ?? null],
      type: QueryTypes.SELECT,
    });
    if (rows.length === 0) return;
    yield rows.map(scanned);
    if (rows.length < SCAN_CHUNK) return;
    const last = rows[rows.length - 1];
    after = { entryDate: last.entry_date, id: last.id };
  }
}

/**
 * The given entries of a workspace, locked (in id order, so two applies never deadlock) and then
 * read afresh in a later statement (whose snapshot sees what committed while it waited: tags,
 * documents, a period closed meanwhile — the caller holds the shared period lock).
 */
export async function lockScannedEntries(tx: Transaction, workspaceId: number, ids: number[]): Promise<ScannedEntry[]> {
  if (ids.length === 0) return [];
  await ledger.lockMany(tx, ids, workspaceId);
  const rows = await db().query<ScanRow>(SCAN_SQL({ liveOnly: false, idsOnly: true, citus: await onCitus() }), {
    bind: [workspaceId, ids],
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return rows.map(scanned);
}
