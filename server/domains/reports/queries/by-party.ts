import type { PartyRow, ReportFilters } from '../../../../shared/contracts/reports.js';
import { amountOf, countedEntriesWhere, Params, selectRows, type ReportScope } from '../report-sql.js';

export const UNASSIGNED = 'Unassigned';

type Row = {
  party_id: number | null;
  party_name: string | null;
  party_type: string | null;
  country: string | null;
  income_cents: number;
  expense_cents: number;
  entry_count: number;
};

/**
 * Spec §4.5 rule 1: an INCOME entry counts for its fromParty, an EXPENSE entry for its
 * toParty; entries without that party share one "Unassigned" row (partyId null).
 * Ordered by volume (income + expense) descending, then partyId, Unassigned last.
 */
export async function byPartyReport(s: ReportScope, f: ReportFilters, limit?: number): Promise<PartyRow[]> {
  const params = new Params();
  const amount = amountOf(f);
  const where = countedEntriesWhere(f, s.reach, params);
  const ws = params.add(f.workspaceId); // the parties of the workspace only: one shard group on Citus (CONTRACT §24)
  const rows = await selectRows<Row>(
    `SELECT a.party_id, p.name AS party_name, p.party_type, p.country::text AS country,
            a.income_cents, a.expense_cents, a.entry_count
       FROM (SELECT CASE WHEN e.entry_type = 'INCOME' THEN e.from_party_id ELSE e.to_party_id END AS party_id,
                    COALESCE(sum(${amount}) FILTER (WHERE e.entry_type = 'INCOME'), 0) AS income_cents,
                    COALESCE(sum(${amount}) FILTER (WHERE e.entry_type = 'EXPENSE'), 0) AS expense_cents,
                    count(*) AS entry_count
               FROM entries e
              WHERE ${where}
              GROUP BY 1) a
       LEFT JOIN parties p ON p.workspace_id = ${ws} AND p.id = a.party_id
      ORDER BY a.income_cents + a.expense_cents DESC, a.party_id ASC NULLS LAST
      ${limit === undefined ? '' : `LIMIT ${params.add(limit)}`}`,
    params,
    s.tx,
  );
  return rows.map((r) => ({
    partyId: r.party_id,
    partyName: r.party_id === null ? UNASSIGNED : (r.party_name ?? UNASSIGNED),
    partyType: r.party_type,
    country: r.country,
    totalIncomeCents: r.income_cents,
    totalExpenseCents: r.expense_cents,
    entryCount: r.entry_count,
  }));
}
