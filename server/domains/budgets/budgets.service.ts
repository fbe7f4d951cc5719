import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { badRequest } from '../../lib/errors.js';
import { creatorOf, scope, type Actor } from '../../lib/scope.js';
import type {
  BudgetLineInput,
  BudgetObject,
  BudgetPeriod,
  CreateBudgetInput,
  UpdateBudgetInput,
} from '../../../shared/contracts/budgets.js';
import { budgetRows, loadBudget, presentBudget } from './budget-rows.js';

/** 400 unless `startDate` is the first day of a period of that kind. */
function assertPeriodStart(period: BudgetPeriod, startDate: string): void {
  const [, month, day] = startDate.split('-').map(Number);
  const ok = day === 1 && (period === 'MONTH' || (period === 'QUARTER' ? (month - 1) % 3 === 0 : month === 1));
  const what = { MONTH: 'a month', QUARTER: 'a quarter (January, April, July or October)', YEAR: 'a year' }[period];
  if (!ok) throw badRequest(`startDate ${startDate} is not the first day of ${what}`);
}

/** Every category (active) and project a line names must be the workspace's (400). */
async function assertLineRefs(tx: Transaction, workspaceId: number, lines: BudgetLineInput[]): Promise<void> {
  const categories = [...new Set(lines.flatMap((l) => (l.categoryId ? [l.categoryId.toLowerCase()] : [])))];
  const projects = [...new Set(lines.flatMap((l) => (l.projectId ? [l.projectId] : [])))];
  const [found] = await db().query<{ categories: string[]; projects: number[] }>(
    `SELECT ARRAY(SELECT id::text FROM accounting_categories WHERE workspace_id = $1 AND is_active AND id = ANY($2::uuid[])) AS categories,
            ARRAY(SELECT id FROM projects WHERE workspace_id = $1 AND id = ANY($3::int[])) AS projects`,
    { bind: [workspaceId, categories, projects], type: QueryTypes.SELECT, transaction: tx },
  );
  const category = categories.find((id) => !found.categories.includes(id));
  if (category !== undefined) throw badRequest(`Category ${category} is not an active category of this workspace`);
  const project = projects.find((id) => !found.projects.map(Number).includes(id));
  if (project !== undefined) throw badRequest(`Project ${project} is not a project of this workspace`);
}

/** The lines, replaced as a set (their lineIndex is their position). */
async function writeLines(tx: Transaction, budgetId: string, workspaceId: number, lines: BudgetLineInput[]): Promise<void> {
  await db().query('DELETE FROM budget_lines WHERE budget_id = :id AND workspace_id = :ws', {
    replacements: { id: budgetId, ws: workspaceId },
    transaction: tx,
  });
  await db().query(
    `INSERT INTO budget_lines (budget_id, workspace_id, line_index, category_id, project_id, entry_type, amount_cents)
     SELECT :id, :ws, l.n - 1, l.category_id, l.project_id, l.entry_type, l.amount_cents
       FROM ROWS FROM (jsonb_to_recordset(CAST(:lines AS jsonb)) AS (category_id uuid, project_id int, entry_type text, amount_cents bigint))
            WITH ORDINALITY AS l(category_id, project_id, entry_type, amount_cents, n)`,
    {
      replacements: {
        id: budgetId,
        ws: workspaceId,
        lines: JSON.stringify(
          lines.map((l) => ({
            category_id: l.categoryId ?? null,
            project_id: l.projectId ?? null,
            entry_type: l.entryType,
            amount_cents: l.amountCents,
          })),
        ),
      },
      transaction: tx,
    },
  );
}

export async function createBudget(actor: Actor, input: CreateBudgetInput): Promise<BudgetObject> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  assertPeriodStart(input.period, input.startDate);
  return transaction(async (tx) => {
    await assertLineRefs(tx, input.workspaceId, input.lines);
    const [{ id }] = await db().query<{ id: string }>(
      `INSERT INTO budgets (workspace_id, name, period, start_date, periods, currency, created_by, created_at, updated_at)
       SELECT :ws, :name, :period, :start, :periods, w.base_currency, :createdBy, :now, :now FROM workspaces w WHERE w.id = :ws
       RETURNING id`,
      {
        replacements: {
          ws: input.workspaceId,
          name: input.name,
          period: input.period,
          start: input.startDate,
          periods: input.periods,
          createdBy: creatorOf(actor),
          now: clock.now(),
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    await writeLines(tx, id, input.workspaceId, input.lines);
    return presentBudget(await loadBudget(actor, id, tx));
  });
}

/**
 * Any member of the workspace. A budget plans the whole workspace: members of some of its projects only get 403, as on
 * its report (CONTRACT §25), so no route shows them the other projects' plan.
 */
export async function listBudgets(actor: Actor, input: { workspaceId: number }): Promise<BudgetObject[]> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return (await budgetRows(undefined, input.workspaceId)).map(presentBudget);
}

export async function getBudget(actor: Actor, input: { id: string }): Promise<BudgetObject> {
  const row = await loadBudget(actor, input.id);
  scope.requireWorkspaceMember(actor, row.workspace_id);
  return presentBudget(row);
}

/** PATCH: a change of the lines replaces them, and forgets which of them were reported exceeded. */
export async function updateBudget(actor: Actor, input: UpdateBudgetInput): Promise<BudgetObject> {
  return transaction(async (tx) => {
    const row = await loadBudget(actor, input.id, tx, true);
    scope.requireWorkspaceMember(actor, row.workspace_id);
    const period = input.period ?? row.period;
    const startDate = input.startDate ?? row.start_date;
    assertPeriodStart(period, startDate);
    if (input.lines) {
      await assertLineRefs(tx, row.workspace_id, input.lines);
      await writeLines(tx, row.id, row.workspace_id, input.lines);
    }
    // two statements, not a CTE: Citus runs `WITH d AS (DELETE … WHERE false) UPDATE …` as updating nothing
    if (input.lines !== undefined || period !== row.period || startDate !== row.start_date)
      await db().query('DELETE FROM budget_exceeded WHERE budget_id = :id AND workspace_id = :ws', {
        replacements: { id: row.id, ws: row.workspace_id },
        transaction: tx,
      });
    await db().query(
      `UPDATE budgets SET name = :name, period = :period, start_date = :start, periods = :periods, updated_at = :now
        WHERE id = :id AND workspace_id = :ws`,
      {
        replacements: {
          id: row.id,
          ws: row.workspace_id,
          name: input.name ?? row.name,
          period,
          start: startDate,
          periods: input.periods ?? row.periods,
          now: clock.now(),
        },
        transaction: tx,
      },
    );
    return presentBudget(await loadBudget(actor, row.id, tx));
  });
}

export async function deleteBudget(actor: Actor, input: { id: string }): Promise<{ success: true }> {
  await transaction(async (tx) => {
    const row = await loadBudget(actor, input.id, tx, true);
    scope.requireWorkspaceMember(actor, row.workspace_id);
    await db().query('DELETE FROM budgets WHERE id = :id AND workspace_id = :ws', {
      replacements: { id: row.id, ws: row.workspace_id },
      transaction: tx,
    });
  });
  return { success: true };
}
