import { z } from 'zod/v4';
import {
  BankLineObject,
  CreateEntryFromLineInput,
  EntryWithMatch,
  IgnoreLineInput,
  LinePath,
  SuggestionObject,
} from '../../../shared/contracts/banking.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import { createEntryFromLine } from './create-entry.service.js';
import { ignoreLine, unignoreLine } from './lines.service.js';
import { suggestionsFor } from './suggestions.service.js';

const TAG = 'Banking';

export const bankLinesRouter = router({
  ignore: permitted('bank.manage')
    .meta(op('POST', '/bank-lines/{id}/ignore', 'ignoreBankLine', TAG, 'UNMATCHED → IGNORED (reason required)', [403, 404, 409]))
    .input(IgnoreLineInput)
    .output(BankLineObject)
    .mutation(({ ctx, input }) => ignoreLine(ctx.actor, input)),
  unignore: permitted('bank.manage')
    .meta(op('POST', '/bank-lines/{id}/unignore', 'unignoreBankLine', TAG, 'IGNORED → UNMATCHED', [403, 404, 409]))
    .input(LinePath)
    .output(BankLineObject)
    .mutation(({ ctx, input }) => unignoreLine(ctx.actor, input)),
  suggestions: authedProcedure
    .meta(
      op('GET', '/bank-lines/{id}/suggestions', 'suggestBankLineMatches', TAG, 'At most 5 candidate entries or groups, best first', [404]),
    )
    .input(LinePath)
    .output(z.array(SuggestionObject).max(5))
    .query(({ ctx, input }) => suggestionsFor(ctx.actor, input.id)),
  createEntry: permitted('entry.create')
    .meta(
      op(
        'POST',
        '/bank-lines/{id}/create-entry',
        'createEntryFromBankLine',
        TAG,
        'Create the entry of a line and match it',
        [403, 404, 409],
        {
          description: 'Needs entry.create and entry.reconcile.',
        },
      ),
    )
    .input(CreateEntryFromLineInput)
    .output(EntryWithMatch)
    .mutation(({ ctx, input }) => createEntryFromLine(ctx.actor, input)),
});
