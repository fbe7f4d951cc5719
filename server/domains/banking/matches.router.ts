import { CreateMatchInput, MatchObject, MatchPath } from '../../../shared/contracts/banking.js';
import { Success } from '../../../shared/contracts/common.js';
import { router } from '../../trpc/init.js';
import { op, permitted } from '../../trpc/procedures.js';
import * as matches from './matches.service.js';

const TAG = 'Banking';

export const reconciliationRouter = router({
  create: permitted('entry.reconcile')
    .meta(
      op('POST', '/reconciliation/matches', 'createBankMatch', TAG, 'Match bank lines with entries (signed sums equal)', [403, 404, 409]),
    )
    .input(CreateMatchInput)
    .output(MatchObject)
    .mutation(({ ctx, input }) => matches.createMatch(ctx.actor, input)),
  get: permitted('entry.reconcile')
    .meta(op('GET', '/reconciliation/matches/{id}', 'getBankMatch', TAG, 'Get a match', [403, 404]))
    .input(MatchPath)
    .output(MatchObject)
    .query(({ ctx, input }) => matches.getMatch(ctx.actor, input.id)),
  delete: permitted('entry.reconcile')
    .meta(
      op(
        'DELETE',
        '/reconciliation/matches/{id}',
        'deleteBankMatch',
        TAG,
        'Undo a match (lines UNMATCHED, entries unreconciled)',
        [403, 404],
      ),
    )
    .input(MatchPath)
    .output(Success)
    .mutation(({ ctx, input }) => matches.deleteMatch(ctx.actor, input.id)),
});
