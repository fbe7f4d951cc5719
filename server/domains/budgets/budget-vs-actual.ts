import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { forbidden } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { BudgetVsActual } from '../../../shared/contracts/budgets.js';
import { loadBudget, presentBudget, type BudgetRow } from './budget-rows.js';
import { COUNTED, periodEnd, periodLabel, periodStart, periodStep } from './budget-sql.js';

/**
 * GET /reports/budget-vs-actual (CONTRACT §25) in ONE statement: the entries the reports count (§11) of the budget's
 * window summed per period, type, category and project (amountBaseCents, as the normalised reports), then each line
 * of each period joined to the sums it covers. No entry leaves PostgreSQL. $1 budget, $2 workspace, $3 period kind,
 * $4 first day, $5 last day.
 */
export const BUDGET_VS_ACTUAL_SQL = `
WITH p AS (
  SELECT n, (($4::date + n * ${periodStep('$3::text')}))::date AS p_from
    FROM generate_series(0, (SELECT periods - 1 FROM budgets WHERE id = $1::uuid)) AS n
), sums AS (
  SELECT ${periodStart('$3::text', 'e.entry_date')} AS p_from, e.entry_type, e.category_id, e.project_id,
         sum(e.amount_base_cents) AS total
    FROM entries e
   WHERE e.workspace_id = $2::int AND e.entry_date BETWEEN $4::date AND $5::date AND e.entry_status IN ${COUNTED}
     AND e.amount_base_cents IS NOT NULL
   GROUP BY 1, 2, 3, 4
)
SELECT p.n, ${periodLabel('$3::text', 'p.p_from')} AS label, p.p_from::text AS "from", ${periodEnd('$3::text', 'p.p_from')}::text AS "to",
       l.line_index, l.amount_cents::bigint AS budget, COALESCE(sum(s.total), 0)::bigint AS actual
  FROM p CROSS JOIN budget_lines l
  LEFT JOIN sums s ON s.p_from = p.p_from AND s.entry_type = l.entry_type
        AND (l.category_id IS NULL OR s.category_id = l.category_id) AND (l.project_id IS NULL OR s.project_id = l.project_id)
 WHERE l.budget_id = $1::uuid
 GROUP BY p.n, p.p_from, l.line_index, l.amount_cents
 ORDER BY p.n, l.line_index`;

/** The budget's first and last day. */
export function windowOf(b: Pick<BudgetRow, 'period' | 'start_date' | 'periods'>): { first: string; last: string } {
  const [y, m] = b.start_date.split('-').map(Number);
  const months = { MONTH: 1, QUARTER: 3, YEAR: 12 }[b.period] * b.periods;
  const end = new Date(Date.UTC(y, m - 1 + months, 1) - 86_400_000);
  return { first: b.start_date, last: end.toISOString().slice(0, 10) };
}

type Row = { n: number; label: string; from: string; to: string; line_index: number; budget: string; actual: string };

const percent = (actual: number, budget: number) => (budget === 0 ? null : Math.round((actual * 1000) / budget) / 10);

/** Any member of the budget's workspace; a project member (or a project-scoped key): 403; a foreign budget: 404. */
export async function budgetVsActual(actor: Actor, input: { budgetId: string }): Promise<BudgetVsActual> {
  const budget = await loadBudget(actor, input.budgetId);
  if (!scope.workspaceReach(actor, budget.workspace_id).all) throw forbidden('Budget reports are for members of the whole workspace');
  const { first, last } = windowOf(budget);
  const rows = await db().query<Row>(BUDGET_VS_ACTUAL_SQL, {
    bind: [budget.id, budget.workspace_id, budget.period, first, last],
    type: QueryTypes.SELECT,
  });
  const periods: BudgetVsActual['periods'] = [];
  for (const r of rows) {
    if (periods.length === 0 || periods.at(-1)!.from !== r.from) periods.push({ label: r.label, from: r.from, to: r.to, lines: [] });
    const budgetCents = Number(r.budget);
    const actualCents = Number(r.actual);
    periods.at(-1)!.lines.push({
      lineIndex: r.line_index,
      budgetCents,
      actualCents,
      varianceCents: budgetCents - actualCents,
      usedPercent: percent(actualCents, budgetCents),
    });
  }
  return { budget: presentBudget(budget), currency: budget.currency.trim(), periods };
}
