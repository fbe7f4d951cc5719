import { z } from 'zod/v4';
import { Success } from '../../../shared/contracts/common.js';
import {
  BUDGETS_PER_LIST_MAX,
  BudgetIdInput,
  BudgetObject,
  BudgetVsActual,
  BudgetVsActualQuery,
  CreateBudgetInput,
  ListBudgetsQuery,
  UpdateBudgetInput,
} from '../../../shared/contracts/budgets.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import * as budgets from './budgets.service.js';
import { budgetVsActual } from './budget-vs-actual.js';

const TAG = 'Budgets';
const can = permitted('accounting.manage');

export const budgetsRouter = router({
  create: can
    .meta(
      op('POST', '/budgets', 'createBudget', TAG, 'Create a budget', [403], {
        description:
          'Lines by category, project, both or neither (the whole workspace’s entries of that type), each amount per period, in the workspace’s base currency. startDate must be the first day of such a period (400).',
      }),
    )
    .input(CreateBudgetInput)
    .output(BudgetObject)
    .mutation(({ ctx, input }) => budgets.createBudget(ctx.actor, input)),
  list: authedProcedure
    .meta(op('GET', '/budgets', 'listBudgets', TAG, 'Budgets of a workspace (its members; project members: 403)', [403]))
    .input(ListBudgetsQuery)
    .output(z.array(BudgetObject).max(BUDGETS_PER_LIST_MAX))
    .query(({ ctx, input }) => budgets.listBudgets(ctx.actor, input)),
  get: authedProcedure
    .meta(op('GET', '/budgets/{id}', 'getBudget', TAG, 'A budget', [403, 404]))
    .input(BudgetIdInput)
    .output(BudgetObject)
    .query(({ ctx, input }) => budgets.getBudget(ctx.actor, input)),
  update: can
    .meta(op('PATCH', '/budgets/{id}', 'updateBudget', TAG, 'Update a budget', [403, 404]))
    .input(UpdateBudgetInput)
    .output(BudgetObject)
    .mutation(({ ctx, input }) => budgets.updateBudget(ctx.actor, input)),
  delete: can
    .meta(op('DELETE', '/budgets/{id}', 'deleteBudget', TAG, 'Delete a budget', [403, 404]))
    .input(BudgetIdInput)
    .output(Success)
    .mutation(({ ctx, input }) => budgets.deleteBudget(ctx.actor, input)),
  vsActual: authedProcedure
    .meta(
      op(
        'GET',
        '/reports/budget-vs-actual',
        'getBudgetVsActual',
        'Reports',
        'A budget against the actual amounts of its periods',
        [403, 404],
        {
          description:
            'actualCents sums amountBaseCents of the entries the reports count (PENDING, UNDER_REVIEW, COMPLETED) of the line’s type, category or project in the period; varianceCents = budgetCents − actualCents; usedPercent = actual ÷ budget × 100, one decimal (null for a budget of 0). Members of the whole workspace only: project members get 403.',
        },
      ),
    )
    .input(BudgetVsActualQuery)
    .output(BudgetVsActual)
    .query(({ ctx, input }) => budgetVsActual(ctx.actor, input)),
});
