import type { ProjectRow, ReportFilters } from '../../../../shared/contracts/reports.js';
import { amountOf, countedEntriesWhere, Params, selectRows, type ReportScope } from '../report-sql.js';

type Row = { project_id: number; project_name: string; income_cents: number; expense_cents: number; entry_count: number };

/** Totals per project that has counted entries; by volume (income + expense) descending, then projectId. */
export async function byProjectReport(s: ReportScope, f: ReportFilters): Promise<ProjectRow[]> {
  const params = new Params();
  const amount = amountOf(f);
  const where = countedEntriesWhere(f, s.reach, params);
  const ws = params.add(f.workspaceId); // the projects of the workspace only: one shard group on Citus (CONTRACT §24)
  const rows = await selectRows<Row>(
    `SELECT a.project_id, p.name AS project_name, a.income_cents, a.expense_cents, a.entry_count
       FROM (SELECT e.project_id,
                    COALESCE(sum(${amount}) FILTER (WHERE e.entry_type = 'INCOME'), 0) AS income_cents,
                    COALESCE(sum(${amount}) FILTER (WHERE e.entry_type = 'EXPENSE'), 0) AS expense_cents,
                    count(*) AS entry_count
               FROM entries e
              WHERE ${where}
              GROUP BY e.project_id) a
       JOIN projects p ON p.workspace_id = ${ws} AND p.id = a.project_id
      ORDER BY a.income_cents + a.expense_cents DESC, a.project_id`,
    params,
    s.tx,
  );
  return rows.map((r) => ({
    projectId: r.project_id,
    projectName: r.project_name,
    totalIncomeCents: r.income_cents,
    totalExpenseCents: r.expense_cents,
    netCents: r.income_cents - r.expense_cents,
    entryCount: r.entry_count,
  }));
}
