import { z } from 'zod/v4';
import { Success, WorkspaceQuery } from '../../../shared/contracts/common.js';
import {
  AutoMatchResult,
  BankAccountObject,
  BankAccountPath,
  BankLineObject,
  CreateBankAccountInput,
  ListLinesQuery,
  ReconciliationQuery,
  ReconciliationStatus,
  StatementObject,
  UpdateBankAccountInput,
} from '../../../shared/contracts/banking.js';
import { Page } from '../../../shared/contracts/common.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import * as accounts from './accounts.service.js';
import { autoMatch } from './auto-match.js';
import { listLines } from './lines.service.js';
import { listStatements } from './statement-rows.js';
import { reconciliationStatus } from './status.service.js';

const TAG = 'Banking';

export const bankAccountsRouter = router({
  list: authedProcedure
    .meta(op('GET', '/bank-accounts', 'listBankAccounts', TAG, 'Bank accounts of a workspace', [403]))
    .input(WorkspaceQuery)
    .output(z.array(BankAccountObject))
    .query(({ ctx, input }) => accounts.listAccounts(ctx.actor, input)),
  create: permitted('bank.manage')
    .meta(op('POST', '/bank-accounts', 'createBankAccount', TAG, 'Create a bank account (and its entry source of kind BANK)', [403, 409]))
    .input(CreateBankAccountInput)
    .output(BankAccountObject)
    .mutation(({ ctx, input }) => accounts.createAccount(ctx.actor, input)),
  get: authedProcedure
    .meta(op('GET', '/bank-accounts/{id}', 'getBankAccount', TAG, 'Get a bank account (never its full number)', [404]))
    .input(BankAccountPath)
    .output(BankAccountObject)
    .query(({ ctx, input }) => accounts.getAccount(ctx.actor, input.id)),
  update: permitted('bank.manage')
    .meta(op('PATCH', '/bank-accounts/{id}', 'updateBankAccount', TAG, 'Change a bank account', [403, 404, 409]))
    .input(UpdateBankAccountInput)
    .output(BankAccountObject)
    .mutation(({ ctx, input }) => accounts.updateAccount(ctx.actor, input)),
  delete: permitted('bank.manage')
    .meta(
      op(
        'DELETE',
        '/bank-accounts/{id}',
        'deactivateBankAccount',
        TAG,
        'Deactivate a bank account (imports and matches on it: 409)',
        [403, 404],
      ),
    )
    .input(BankAccountPath)
    .output(Success)
    .mutation(({ ctx, input }) => accounts.deactivateAccount(ctx.actor, input.id)),
  statements: authedProcedure
    .meta(op('GET', '/bank-accounts/{id}/statements', 'listBankStatements', TAG, 'Statements imported on a bank account', [404]))
    .input(BankAccountPath)
    .output(z.array(StatementObject))
    .query(({ ctx, input }) => listStatements(ctx.actor, input.id)),
  lines: authedProcedure
    .meta(op('GET', '/bank-accounts/{id}/lines', 'listBankLines', TAG, 'Lines of a bank account, by booking date then id (paged)', [404]))
    .input(ListLinesQuery)
    .output(Page(BankLineObject))
    .query(({ ctx, input }) => listLines(ctx.actor, input)),
  autoMatch: permitted('entry.reconcile')
    .meta(
      op(
        'POST',
        '/bank-accounts/{id}/auto-match',
        'autoMatchBankAccount',
        TAG,
        'Match every unambiguous line of the account',
        [403, 404, 409],
      ),
    )
    .input(BankAccountPath)
    .output(AutoMatchResult)
    .mutation(({ ctx, input }) => autoMatch(ctx.actor, input.id)),
  reconciliation: authedProcedure
    .meta(
      op(
        'GET',
        '/bank-accounts/{id}/reconciliation',
        'getBankReconciliation',
        TAG,
        'Reconciliation status of a bank account as of a date',
        [404],
      ),
    )
    .input(ReconciliationQuery)
    .output(ReconciliationStatus)
    .query(({ ctx, input }) => reconciliationStatus(ctx.actor, input)),
});
