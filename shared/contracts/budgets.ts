import { z } from 'zod/v4';
import {
  CentsValue,
  CurrencyValue,
  IntId,
  IntIdValue,
  IsoDate,
  NAME_MAX,
  NonBlankText,
  Text,
  Timestamp,
  Uuid,
  UuidValue,
} from './common.js';
import { EntryType, MAX_AMOUNT_CENTS } from './entries.js';

/** Budgets (CONTRACT §25): a plan per month, quarter or year, with lines by category, project or the whole workspace. */

export const BUDGET_PERIODS_MAX = 36;
export const BUDGET_LINES_MAX = 200;
/** The budgets GET /budgets lists at most (a workspace's plans; the list is a plain array). */
export const BUDGETS_PER_LIST_MAX = 1000;
export const BudgetPeriod = z.enum(['MONTH', 'QUARTER', 'YEAR']);

const LineAmount = z.number().int().min(0).max(MAX_AMOUNT_CENTS);

export const BudgetLineInput = z
  .object({
    categoryId: Uuid.optional(),
    projectId: IntId.optional(),
    entryType: EntryType,
    amountCents: LineAmount.describe('the budget of each period, in the workspace’s base currency'),
  })
  .strict();

export const BudgetLine = z.object({
  lineIndex: z.number().int().min(0).max(BUDGET_LINES_MAX),
  categoryId: UuidValue.nullable(),
  projectId: IntIdValue.nullable(),
  entryType: EntryType,
  amountCents: LineAmount,
});

export const BudgetObject = z.object({
  id: UuidValue,
  workspaceId: IntIdValue,
  name: Text(NAME_MAX),
  period: BudgetPeriod,
  startDate: IsoDate,
  periods: z.number().int().min(1).max(BUDGET_PERIODS_MAX),
  lines: z.array(BudgetLine).max(BUDGET_LINES_MAX),
  currency: CurrencyValue.describe('the workspace’s base currency'),
  createdBy: UuidValue.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const Periods = z.number().int().min(1).max(BUDGET_PERIODS_MAX);
const Lines = z.array(BudgetLineInput).min(1).max(BUDGET_LINES_MAX);
const StartDate = IsoDate.describe('the first day of a period: of a month, a quarter (Jan, Apr, Jul, Oct) or a year');

export const CreateBudgetInput = z
  .object({ workspaceId: IntId, name: NonBlankText(NAME_MAX), period: BudgetPeriod, startDate: StartDate, periods: Periods, lines: Lines })
  .strict();
export const UpdateBudgetInput = z
  .object({
    id: Uuid,
    name: NonBlankText(NAME_MAX).optional(),
    period: BudgetPeriod.optional(),
    startDate: StartDate.optional(),
    periods: Periods.optional(),
    lines: Lines.optional(),
  })
  .strict();
export const BudgetIdInput = z.object({ id: Uuid });
export const ListBudgetsQuery = z.object({ workspaceId: IntId });
export const BudgetVsActualQuery = z.object({ budgetId: Uuid });

export const BudgetVsActualLine = z.object({
  lineIndex: z.number().int().min(0).max(BUDGET_LINES_MAX),
  budgetCents: CentsValue,
  actualCents: CentsValue,
  varianceCents: CentsValue.describe('budgetCents − actualCents'),
  usedPercent: z.number().nullable().describe('actual ÷ budget × 100, one decimal; null for a budget of 0'),
});
export const BudgetVsActualPeriod = z.object({
  label: z.string().max(7).describe('YYYY-MM, YYYY-Qn or YYYY'),
  from: IsoDate,
  to: IsoDate,
  lines: z.array(BudgetVsActualLine).max(BUDGET_LINES_MAX),
});
export const BudgetVsActual = z.object({
  budget: BudgetObject,
  currency: CurrencyValue,
  periods: z.array(BudgetVsActualPeriod).max(BUDGET_PERIODS_MAX),
});

/** The data of a `budget.exceeded` event (CONTRACT §15, §25). */
export const BudgetExceeded = z.object({
  budgetId: UuidValue,
  lineIndex: z.number().int().min(0),
  period: z.string().max(7),
  budgetCents: CentsValue,
  actualCents: CentsValue,
});

export type BudgetLineInput = z.infer<typeof BudgetLineInput>;
export type BudgetObject = z.infer<typeof BudgetObject>;
export type CreateBudgetInput = z.infer<typeof CreateBudgetInput>;
export type UpdateBudgetInput = z.infer<typeof UpdateBudgetInput>;
export type BudgetVsActual = z.infer<typeof BudgetVsActual>;
export type BudgetPeriod = z.infer<typeof BudgetPeriod>;
export type BudgetExceeded = z.infer<typeof BudgetExceeded>;
