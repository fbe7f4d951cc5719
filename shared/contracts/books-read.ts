import { z } from 'zod/v4';
import { CategoryObject, AccountType } from './accounting.js';
import { BigIntIdValue, CentsValue, IntId, IntIdValue, IsoDate, PAGE_MAX, Text, Timestamp, Uuid, UuidValue } from './common.js';
import { CURSOR_MAX, CURSOR_PATTERN } from './entries.js';

/** The books' read side (CONTRACT §23, Reading): journal, trial balance, general ledger, open items, statements. */

export const JournalKind = z.enum(['ENTRY', 'SETTLEMENT', 'REVERSAL', 'MANUAL', 'OPENING']);
const DESCRIPTION_MAX = 2000;
const Cents = CentsValue;
const Currency = z.string().length(3).describe('the workspace base currency; every amount of the books is in it, in its minor units');

const fromNotAfterTo = (q: { from?: string; to?: string }) => !(q.from && q.to && q.from > q.to);
const RANGE_MESSAGE = { message: 'from must not be after to', path: ['from'] };
const DateRange = {
  from: IsoDate.optional().describe('first day, inclusive'),
  to: IsoDate.optional().describe('last day, inclusive'),
};
const Cursor = z
  .string()
  .min(1)
  .max(CURSOR_MAX)
  .meta({ pattern: CURSOR_PATTERN })
  .optional()
  .describe('the nextCursor of the previous page, with the same filters (CONTRACT §18)');
const Limit = z.coerce.number().int().min(1).max(PAGE_MAX).default(20);
const NextCursor = z
  .string()
  .max(CURSOR_MAX)
  .nullable()
  .describe('pass as `cursor` (same filters) for the next page; null on the last page');

export const JournalLineObject = z.object({
  categoryId: UuidValue,
  code: Text(50),
  name: Text(200),
  debitCents: Cents,
  creditCents: Cents,
  description: Text(DESCRIPTION_MAX).nullable(),
});

export const JournalTransactionObject = z.object({
  id: BigIntIdValue,
  workspaceId: IntIdValue,
  kind: JournalKind,
  date: IsoDate,
  postedAt: Timestamp,
  entryId: IntIdValue.nullable(),
  bankMatchId: UuidValue.nullable(),
  reverses: BigIntIdValue.nullable(),
  reversedBy: BigIntIdValue.nullable(),
  description: Text(DESCRIPTION_MAX).nullable(),
  createdBy: UuidValue.nullable(),
  lines: z.array(JournalLineObject).max(10_000),
});

export const JournalQuery = z
  .object({
    workspaceId: IntId,
    ...DateRange,
    entryId: IntId.optional().describe('only the transactions of this entry'),
    categoryId: Uuid.optional().describe('only transactions with a line on this account'),
    kind: JournalKind.optional().describe('only transactions of this kind'),
    limit: Limit,
    cursor: Cursor,
  })
  .refine(fromNotAfterTo, RANGE_MESSAGE);

export const JournalPage = z.object({
  items: z.array(JournalTransactionObject).max(PAGE_MAX),
  limit: z.number().int().min(1).max(PAGE_MAX),
  nextCursor: NextCursor,
});

export const JournalTransactionPath = z.object({
  id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('the journal transaction’s id'),
});

export const AsOfQuery = z.object({
  workspaceId: IntId,
  asOf: IsoDate.optional().describe('the last day counted, inclusive (default: today, UTC)'),
});

export const TrialBalanceAccount = z.object({
  categoryId: UuidValue,
  code: Text(50),
  name: Text(200),
  accountType: AccountType,
  debitCents: Cents,
  creditCents: Cents,
  balanceCents: Cents.describe('debitCents - creditCents'),
});
export const TrialBalanceTotals = z.object({ debitCents: Cents, creditCents: Cents });

export const TrialBalance = z.object({
  asOf: IsoDate,
  currency: Currency,
  accounts: z.array(TrialBalanceAccount).max(100_000),
  totals: TrialBalanceTotals,
});

export const AccountLinesQuery = z
  .object({ categoryId: Uuid.describe('the account (a category of the workspace)'), ...DateRange, limit: Limit, cursor: Cursor })
  .refine(fromNotAfterTo, RANGE_MESSAGE);

export const AccountLine = z.object({
  transactionId: BigIntIdValue,
  kind: JournalKind,
  date: IsoDate,
  entryId: IntIdValue.nullable(),
  description: Text(DESCRIPTION_MAX).nullable(),
  debitCents: Cents,
  creditCents: Cents,
  balanceCents: Cents.describe('the running balance (debits minus credits) after this line'),
});

export const AccountLines = z.object({
  account: CategoryObject,
  openingBalanceCents: Cents.describe('debits minus credits of every line before `from` (0 without `from`)'),
  items: z.array(AccountLine).max(PAGE_MAX),
  closingBalanceCents: Cents.describe('debits minus credits of every line up to `to` (every line without `to`), whichever page'),
  nextCursor: NextCursor,
});

export const OpenItemsQuery = z.object({
  workspaceId: IntId,
  side: z.enum(['RECEIVABLE', 'PAYABLE']).describe('RECEIVABLE: income not yet received; PAYABLE: expenses not yet paid'),
  asOf: IsoDate.optional().describe('default: today, UTC'),
});

export const OpenItem = z.object({
  entryId: IntIdValue,
  entryDate: IsoDate,
  partyId: IntIdValue.nullable().describe('INCOME: its fromParty; EXPENSE: its toParty (as the by-party report)'),
  amountCents: Cents.describe('in base currency'),
  ageDays: z.number().int().describe('asOf - entryDate, in days'),
});
export const OpenItemBuckets = z.object({ current: Cents, d1_30: Cents, d31_60: Cents, d61_90: Cents, over90: Cents });

export const OpenItems = z.object({
  asOf: IsoDate,
  currency: Currency,
  items: z.array(OpenItem).max(10_000_000),
  buckets: OpenItemBuckets,
});

export const StatementRow = z.object({ categoryId: UuidValue, code: Text(50), name: Text(200), amountCents: Cents });
const StatementRows = z.array(StatementRow).max(100_000);

export const ProfitAndLossQuery = z
  .object({
    workspaceId: IntId,
    ...DateRange,
    projectId: IntId.optional().describe("only the ENTRY transactions of this project's entries and their reversals"),
  })
  .refine(fromNotAfterTo, RANGE_MESSAGE);

export const ProfitAndLoss = z.object({
  currency: Currency,
  revenue: StatementRows,
  expenses: StatementRows,
  totalRevenueCents: Cents,
  totalExpenseCents: Cents,
  netIncomeCents: Cents,
});

export const BalanceSheet = z.object({
  asOf: IsoDate,
  currency: Currency,
  assets: StatementRows,
  liabilities: StatementRows,
  equity: StatementRows,
  currentEarningsCents: Cents.describe('every revenue and expense account up to asOf: revenue minus expenses'),
  totalAssetsCents: Cents,
  totalLiabilitiesAndEquityCents: Cents.describe('liabilities + equity + currentEarningsCents; always equal to totalAssetsCents'),
});

export const JournalExportQuery = z
  .object({
    workspaceId: IntId,
    ...DateRange,
    format: z.enum(['csv', 'saft']).default('csv').describe('csv (RFC 4180) or saft (SAF-T Financial 1.30 XML)'),
  })
  .refine(fromNotAfterTo, RANGE_MESSAGE);

export type JournalTransactionObject = z.infer<typeof JournalTransactionObject>;
export type JournalQuery = z.infer<typeof JournalQuery>;
export type TrialBalance = z.infer<typeof TrialBalance>;
export type AccountLinesQuery = z.infer<typeof AccountLinesQuery>;
export type AccountLines = z.infer<typeof AccountLines>;
export type OpenItemsQuery = z.infer<typeof OpenItemsQuery>;
export type OpenItems = z.infer<typeof OpenItems>;
export type ProfitAndLossQuery = z.infer<typeof ProfitAndLossQuery>;
export type ProfitAndLoss = z.infer<typeof ProfitAndLoss>;
export type BalanceSheet = z.infer<typeof BalanceSheet>;
export type JournalExportQuery = z.infer<typeof JournalExportQuery>;
