import type { Transaction } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import { clock } from '../../lib/clock.js';
import type { BudgetExceeded } from '../../../shared/contracts/budgets.js';
import { publishMany } from '../outbound-webhooks/index.js';
import { COUNTED, periodEnd, periodLabel, periodStart, periodStep } from './budget-sql.js';

/**
 * What budgets do when the ledger core changes entries (CONTRACT §25, wired in server/domains/reactions.ts): in the
 * transaction of the change, ONE statement finds the budget lines and periods the changed entries fall in that are
 * not reported yet, sums each one's actual (the counted entries, amountBaseCents), and marks those now past their
 * budget in budget_exceeded, whose key (budget, line, period) makes "once" hold under races; a `budget.exceeded`
 * event is published for each line and period it marked. Imports nothing of entries.
 */
const EXCEEDED_SQL = `
WITH changed AS (
  SELECT DISTINCT e.workspace_id, e.entry_type, e.category_id, e.project_id, e.entry_date
    FROM entries e
   WHERE e.workspace_id = $3 AND e.id = ANY($1::bigint[]) AND e.entry_status IN ${COUNTED} AND e.amount_base_cents IS NOT NULL
), touched AS (
  SELECT DISTINCT b.id AS budget_id, b.workspace_id, b.period, l.line_index, l.amount_cents, l.entry_type, l.category_id, l.project_id,
         ${periodStart('b.period', 'c.entry_date')} AS p_from
    FROM changed c
    JOIN budget_lines l ON l.workspace_id = c.workspace_id AND l.entry_type = c.entry_type
         AND (l.category_id IS NULL OR l.category_id = c.category_id) AND (l.project_id IS NULL OR l.project_id = c.project_id)
    JOIN budgets b ON b.id = l.budget_id AND b.workspace_id = l.workspace_id
   WHERE c.entry_date >= b.start_date AND c.entry_date < b.start_date + b.periods * ${periodStep('b.period')}
), open AS (
  SELECT t.*, ${periodEnd('t.period', 't.p_from')} AS p_to FROM touched t
   WHERE NOT EXISTS (SELECT 1 FROM budget_exceeded x WHERE x.workspace_id = t.workspace_id AND x.budget_id = t.budget_id AND x.line_index = t.line_index AND x.period_start = t.p_from)
), actual AS (
  SELECT o.*, (SELECT COALESCE(sum(e.amount_base_cents), 0) FROM entries e
                WHERE e.workspace_id = o.workspace_id AND e.entry_date BETWEEN o.p_from AND o.p_to AND e.entry_status IN ${COUNTED}
                  AND e.entry_type = o.entry_type AND (o.category_id IS NULL OR e.category_id = o.category_id)
                  AND (o.project_id IS NULL OR e.project_id = o.project_id))::bigint AS actual
    FROM open o
), marked AS (
  INSERT INTO budget_exceeded (budget_id, workspace_id, line_index, period_start, created_at)
  SELECT budget_id, workspace_id, line_index, p_from, $2::timestamptz FROM actual WHERE actual > amount_cents
  ON CONFLICT DO NOTHING
  RETURNING budget_id, line_index, period_start
)
SELECT a.budget_id, a.workspace_id, a.line_index, ${periodLabel('a.period', 'a.p_from')} AS period, a.amount_cents::bigint AS budget,
       a.actual
  FROM actual a JOIN marked m ON m.budget_id = a.budget_id AND m.line_index = a.line_index AND m.period_start = a.p_from
 ORDER BY a.budget_id, a.line_index, a.p_from`;

type Crossed = { budget_id: string; workspace_id: number; line_index: number; period: string; budget: string; actual: string };

/**
 * Changed entries: `budget.exceeded` for every budget line and period they took past its budget. One statement per
 * workspace (on Citus each then runs in that workspace's shard group).
 */
async function afterEntriesChanged(tx: Transaction, entries: readonly { id: number; workspace_id: number }[]): Promise<void> {
  for (const ws of new Set(entries.map((e) => Number(e.workspace_id)))) {
    const ids = entries.filter((e) => Number(e.workspace_id) === ws).map((e) => e.id);
    await afterWorkspaceEntriesChanged(tx, ws, ids);
  }
}

async function afterWorkspaceEntriesChanged(tx: Transaction, workspaceId: number, ids: number[]): Promise<void> {
  const crossed = await preparedQuery<Crossed>(tx, 'budgets_exceeded', EXCEEDED_SQL, [ids, clock.now(), workspaceId]);
  if (crossed.length === 0) return;
  await publishMany(
    tx,
    crossed.map((c) => {
      const object: BudgetExceeded = {
        budgetId: c.budget_id,
        lineIndex: c.line_index,
        period: c.period,
        budgetCents: Number(c.budget),
        actualCents: Number(c.actual),
      };
      return { workspaceId: c.workspace_id, type: 'budget.exceeded' as const, object };
    }),
  );
}

/**
 * For the first statement of a create (newEntrySql): whether the workspace has a budget line at all. Without one
 * no create can cross a budget, and afterEntriesChanged costs the create no statement.
 */
const dueSql = (ws: string) => `EXISTS (SELECT 1 FROM budget_lines l WHERE l.workspace_id = ${ws})`;

export const budgetReactions = { afterEntriesChanged, dueSql };
