import type { ReportFilters, TagRow } from '../../../../shared/contracts/reports.js';
import { amountOf, countedEntriesWhere, Params, selectRows, type ReportScope } from '../report-sql.js';

type Row = { tag_id: number; tag_name: string; income_cents: number; expense_cents: number; entry_count: number };

/** An entry's share of `amount` for one of its tags: floor(amount / n), plus a remainder cent for the lowest ranks. */
const shareOf = (amount: string) => `${amount} / et.tag_count + CASE WHEN et.tag_rank <= ${amount} % et.tag_count THEN 1 ELSE 0 END`;

/**
 * Spec §4.5 rule 2 / CONTRACT §11: an entry with n tags gives floor(amount / n) to each tag
 * and its remainder one cent at a time to its tags in ascending tag id, so the tags of an
 * entry add up to its amount exactly. `tag_rank` (row_number() over the entry's tags by tag
 * id) and `tag_count` are kept on entry_tags by triggers (migration 0006), so this is one
 * parallel join. entryCount = distinct entries per tag (entry_tags is keyed by
 * (entry_id, tag_id): one row per entry and tag). Untagged entries are not listed.
 * Ordered by totalCents descending, then tagId.
 */
export async function byTagReport(s: ReportScope, f: ReportFilters): Promise<TagRow[]> {
  const params = new Params();
  const where = countedEntriesWhere(f, s.reach, params);
  const SHARE = shareOf(amountOf(f));
  // every table named by the workspace: on Citus one shard group answers the whole report (CONTRACT §24)
  const ws = params.add(f.workspaceId);
  const rows = await selectRows<Row>(
    `SELECT a.tag_id, t.name AS tag_name, a.income_cents, a.expense_cents, a.entry_count
       FROM (SELECT et.tag_id,
                    COALESCE(sum(${SHARE}) FILTER (WHERE e.entry_type = 'INCOME'), 0) AS income_cents,
                    COALESCE(sum(${SHARE}) FILTER (WHERE e.entry_type = 'EXPENSE'), 0) AS expense_cents,
                    count(*) AS entry_count
               FROM entries e
               JOIN entry_tags et ON et.workspace_id = e.workspace_id AND et.entry_id = e.id
              WHERE ${where}
              GROUP BY et.tag_id) a
       JOIN tags t ON t.workspace_id = ${ws} AND t.id = a.tag_id
      ORDER BY a.income_cents + a.expense_cents DESC, a.tag_id`,
    params,
    s.tx,
  );
  return rows.map((r) => ({
    tagId: r.tag_id,
    tagName: r.tag_name,
    totalCents: r.income_cents + r.expense_cents,
    incomeCents: r.income_cents,
    expenseCents: r.expense_cents,
    entryCount: r.entry_count,
  }));
}
