import { WorkspaceQuery } from '../../../shared/contracts/common.js';
import { JournalTransactionObject } from '../../../shared/contracts/books-read.js';
import {
  ManualJournalInput,
  PutRolesInput,
  ReverseJournalInput,
  RolesObject,
  VerifyQuery,
  VerifyResult,
} from '../../../shared/contracts/books-write.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import { postManualJournal, reverseManualJournal } from './journal-write.service.js';
import { getRoles, putRoles } from './roles.service.js';
import { verifyBooks } from './verify.service.js';

const TAG = 'Books';
const SCOPED = 'Project members and API keys limited to projects get 403: the books are the workspace’s.';

/** The books' write side (CONTRACT §23): roles, manual journals and their reversal, verify. */
export const booksWriteRouter = router({
  roles: authedProcedure
    .meta(
      op('GET', '/ledger/roles', 'getLedgerRoles', TAG, 'The accounts of the seven ledger roles', [403], {
        description: `Workspace members. A role without an account gets one (an unused code, active) first. ${SCOPED}`,
      }),
    )
    .input(WorkspaceQuery)
    .output(RolesObject)
    .query(({ ctx, input }) => getRoles(ctx.actor, input.workspaceId)),
  putRoles: permitted('accounting.categories')
    .meta(
      op('PUT', '/ledger/roles', 'putLedgerRoles', TAG, 'Set the accounts of ledger roles', [403], {
        description: `Each category must be the workspace’s, active and of the role’s type (400); postings from then on use it. ${SCOPED}`,
      }),
    )
    .input(PutRolesInput)
    .output(RolesObject)
    .mutation(({ ctx, input }) => putRoles(ctx.actor, input)),
  postJournal: permitted('accounting.manage')
    .meta(
      op('POST', '/ledger/journal', 'postManualJournal', TAG, 'Post a manual journal', [403, 409], {
        description: `Kind MANUAL: each line one positive side, debits equal credits, categories active and the workspace’s, none the RECEIVABLE or PAYABLE account (400); a date in a closed period: 409. Sends journal.posted. ${SCOPED}`,
      }),
    )
    .input(ManualJournalInput)
    .output(JournalTransactionObject)
    .mutation(({ ctx, input }) => postManualJournal(ctx.actor, input)),
  reverseJournal: permitted('accounting.manage')
    .meta(
      op('POST', '/ledger/journal/{id}/reverse', 'reverseManualJournal', TAG, 'Reverse a manual journal', [403, 404, 409], {
        description: `Posts its REVERSAL, dated date or the original’s: once (409 the second time), only for MANUAL transactions (409), not in a closed period (409). ${SCOPED}`,
      }),
    )
    .input(ReverseJournalInput)
    .output(JournalTransactionObject)
    .mutation(({ ctx, input }) => reverseManualJournal(ctx.actor, input.id, input.date)),
  verify: permitted('accounting.manage')
    .meta(
      op('GET', '/ledger/verify', 'verifyLedger', TAG, 'Verify the books against the entries', [403], {
        description: `Rebuilds what each entry should have posted and compares it with its live journal transactions. ${SCOPED}`,
      }),
    )
    .input(VerifyQuery)
    .output(VerifyResult)
    .query(({ ctx, input }) => verifyBooks(ctx.actor, input.workspaceId)),
});
