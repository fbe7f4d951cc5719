import {
  AccountLines,
  AccountLinesQuery,
  AsOfQuery,
  BalanceSheet,
  JournalPage,
  JournalQuery,
  JournalTransactionObject,
  JournalTransactionPath,
  OpenItems,
  OpenItemsQuery,
  ProfitAndLoss,
  ProfitAndLossQuery,
  TrialBalance,
} from '../../../shared/contracts/books-read.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op } from '../../trpc/procedures.js';
import { accountLines } from './read/account-lines.js';
import { getTransaction, listJournal } from './read/journal.js';
import { openItems } from './read/open-items.js';
import { balanceSheet, profitAndLoss } from './read/statements.js';
import { trialBalance } from './read/trial-balance.js';

const TAG = 'Books';
const READERS =
  'Workspace members (no permission needed); project members and API keys limited to projects get 403: the books are the workspace’s.';
const read = (path: `/${string}`, operationId: string, summary: string, statuses: number[], description: string) =>
  op('GET', path, operationId, TAG, summary, statuses, { description: `${description} ${READERS}` });

/** The books' read side (CONTRACT §23, Reading): every amount in the workspace base currency, from the journal and its balances. */
export const booksReadRouter = router({
  journal: authedProcedure
    .meta(
      read(
        '/ledger/journal',
        'listJournalTransactions',
        'Journal transactions, by date then id (cursor pages)',
        [403],
        'Keyset pages (CONTRACT §18): pass nextCursor as cursor with the same filters.',
      ),
    )
    .input(JournalQuery)
    .output(JournalPage)
    .query(({ ctx, input }) => listJournal(ctx.actor, input)),
  journalTransaction: authedProcedure
    .meta(
      read(
        '/ledger/journal/{id}',
        'getJournalTransaction',
        'A journal transaction with its lines',
        [403, 404],
        'reversedBy names the transaction that reverses it.',
      ),
    )
    .input(JournalTransactionPath)
    .output(JournalTransactionObject)
    .query(({ ctx, input }) => getTransaction(ctx.actor, input.id)),
  trialBalance: authedProcedure
    .meta(
      read(
        '/ledger/trial-balance',
        'getTrialBalance',
        'Trial balance as of a date',
        [403],
        'Every account with a line dated on or before asOf, ordered by code, with its debits and credits; the totals are equal.',
      ),
    )
    .input(AsOfQuery)
    .output(TrialBalance)
    .query(({ ctx, input }) => trialBalance(ctx.actor, input)),
  accountLines: authedProcedure
    .meta(
      read(
        '/ledger/accounts/{categoryId}/lines',
        'listAccountLines',
        'General ledger of one account (cursor pages)',
        [403, 404],
        'Lines by date, transaction and line number with the running balance (debits minus credits) after each; the opening balance is that of every line before from, the closing one that of every line up to to, on every page.',
      ),
    )
    .input(AccountLinesQuery)
    .output(AccountLines)
    .query(({ ctx, input }) => accountLines(ctx.actor, input)),
  openItems: authedProcedure
    .meta(
      read(
        '/ledger/open-items',
        'getOpenItems',
        'Receivables or payables not settled as of a date, aged',
        [403],
        'ageDays = asOf - entryDate; buckets: current (age 0 or less), 1-30, 31-60, 61-90 and over 90 days.',
      ),
    )
    .input(OpenItemsQuery)
    .output(OpenItems)
    .query(({ ctx, input }) => openItems(ctx.actor, input)),
  profitAndLoss: authedProcedure
    .meta(
      read(
        '/reports/profit-and-loss',
        'getProfitAndLoss',
        'Profit and loss of a date range, from the books',
        [403],
        'Revenue and expense accounts with their movement in [from, to], positive in the account’s normal direction; equals the normalised summary of the range plus the manual journals on P&L accounts. projectId: only the ENTRY transactions of that project’s entries and their reversals.',
      ),
    )
    .input(ProfitAndLossQuery)
    .output(ProfitAndLoss)
    .query(({ ctx, input }) => profitAndLoss(ctx.actor, input)),
  balanceSheet: authedProcedure
    .meta(
      read(
        '/reports/balance-sheet',
        'getBalanceSheet',
        'Balance sheet as of a date, from the books',
        [403],
        'Assets, liabilities and equity up to asOf, positive in the account’s normal direction; the P&L accounts are currentEarningsCents, so totalAssetsCents always equals totalLiabilitiesAndEquityCents.',
      ),
    )
    .input(AsOfQuery)
    .output(BalanceSheet)
    .query(({ ctx, input }) => balanceSheet(ctx.actor, input)),
});
