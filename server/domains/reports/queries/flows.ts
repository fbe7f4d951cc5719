import type { FlowRow, ReportFilters } from '../../../../shared/contracts/reports.js';
import { amountOf, countedEntriesWhere, Params, selectRows, type ReportScope } from '../report-sql.js';
import { UNASSIGNED } from './by-party.js';

type Row = {
  from_party_id: number | null;
  from_party_name: string | null;
  to_party_id: number | null;
  to_party_name: string | null;
  total_cents: number;
  entry_count: number;
};

/**
 * Money moving from one party to another: one link per (fromParty, toParty) pair, whatever
 * the entry type; a missing side is `null` / "Unassigned". Largest links first, at most `limit`
 * of them (`truncated` when there are more).
 */
export async function flowsReport(s: ReportScope, f: ReportFilters, limit: number): Promise<{ rows: FlowRow[]; truncated: boolean }> {
  const params = new Params();
  const amount = amountOf(f);
  const where = countedEntriesWhere(f, s.reach, params);
  const oneMore = params.add(limit + 1);
  const ws = params.add(f.workspaceId); // the parties of the workspace only: one shard group on Citus (CONTRACT §24)
  const rows = await selectRows<Row>(
    `SELECT a.from_party_id, fp.name AS from_party_name, a.to_party_id, tp.name AS to_party_name, a.total_cents, a.entry_count
       FROM (SELECT e.from_party_id, e.to_party_id, sum(${amount}) AS total_cents, count(*) AS entry_count
               FROM entries e
              WHERE ${where}
              GROUP BY e.from_party_id, e.to_party_id) a
       LEFT JOIN parties fp ON fp.workspace_id = ${ws} AND fp.id = a.from_party_id
       LEFT JOIN parties tp ON tp.workspace_id = ${ws} AND tp.id = a.to_party_id
      ORDER BY a.total_cents DESC, a.from_party_id ASC NULLS LAST, a.to_party_id ASC NULLS LAST
      LIMIT ${oneMore}`,
    params,
    s.tx,
  );
  const links = rows.slice(0, limit).map((r) => ({
    fromPartyId: r.from_party_id,
    fromPartyName: r.from_party_id === null ? UNASSIGNED : (r.from_party_name ?? UNASSIGNED),
    toPartyId: r.to_party_id,
    toPartyName: r.to_party_id === null ? UNASSIGNED : (r.to_party_name ?? UNASSIGNED),
    totalCents: r.total_cents,
    entryCount: r.entry_count,
  }));
  return { rows: links, truncated: rows.length > limit };
}
