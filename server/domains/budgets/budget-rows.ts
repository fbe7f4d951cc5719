import { lockWorkspace } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { notFound } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import type { BudgetObject, BudgetPeriod } from '../../../shared/contracts/budgets.js';
import type { EntryType } from '../../../shared/contracts/entries.js';

export type BudgetLineRow = {
  line_index: number;
  category_id: string | null;
  project_id: number | null;
  entry_type: EntryType;
  amount_cents: number;
};
export type BudgetRow = {
  id: string;
  workspace_id: number;
  name: string;
  period: BudgetPeriod;
  start_date: string;
  periods: number;
  currency: string;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  lines: BudgetLineRow[];
};

export const presentBudget = (r: BudgetRow): BudgetObject => ({
  id: r.id,
  workspaceId: r.workspace_id,
  name: r.name,
  period: r.period,
  startDate: r.start_date,
  periods: r.periods,
  lines: r.lines.map((l) => ({
    lineIndex: l.line_index,
    categoryId: l.category_id,
    projectId: l.project_id,
    entryType: l.entry_type,
    amountCents: Number(l.amount_cents),
  })),
  currency: r.currency.trim(),
  createdBy: r.created_by,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

/** A budget with its lines (in lineIndex order), read in one statement: by id, or every one of a workspace. */
/** `linesOf`: the budget lines' workspace (a constant where a lock needs the statement routed to one shard group on Citus). */
const BUDGETS_SQL = (where: string, tail = 'ORDER BY b.created_at, b.id', linesOf = 'b.workspace_id') => `
  SELECT b.*, COALESCE((SELECT json_agg(json_build_object('line_index', l.line_index, 'category_id', l.category_id,
                 'project_id', l.project_id, 'entry_type', l.entry_type, 'amount_cents', l.amount_cents) ORDER BY l.line_index)
             FROM budget_lines l WHERE l.budget_id = b.id AND l.workspace_id = ${linesOf}), '[]') AS lines
    FROM budgets b WHERE ${where} ${tail}`;

export async function budgetRows(tx: Transaction | undefined, workspaceId: number): Promise<BudgetRow[]> {
  return db().query<BudgetRow>(BUDGETS_SQL('b.workspace_id = :ws'), {
    replacements: { ws: workspaceId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
}

/** Whether the actor reaches the workspace at all (a member, or a member of one of its projects). */
export const reachesWorkspace = (actor: Actor, workspaceId: number) =>
  actor.workspaceIds.has(workspaceId) || [...actor.projectWorkspace.values()].includes(workspaceId);

/** The budget (locked FOR UPDATE with `lock`) when the actor reaches its workspace, else 404. */
export async function loadBudget(actor: Actor, id: string, tx?: Transaction, lock = false): Promise<BudgetRow> {
  const ws = lock ? await lockWorkspace('budgets', id, tx) : null;
  const [row] = await db().query<BudgetRow>(
    ws === null
      ? BUDGETS_SQL('b.id = :id', lock ? 'FOR UPDATE OF b' : '')
      : BUDGETS_SQL(`b.id = :id AND b.workspace_id = ${ws}`, 'FOR UPDATE OF b', String(ws)),
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  if (!row || !reachesWorkspace(actor, row.workspace_id)) throw notFound('Budget');
  return row;
}
