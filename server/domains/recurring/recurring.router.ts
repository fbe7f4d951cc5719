import {
  CreateRecurringEntryInput,
  ListRecurringEntriesQuery,
  OccurrenceList,
  OccurrencesQuery,
  RecurringEntryIdInput,
  RecurringEntryObject,
  RecurringEntryPage,
  RunRecurringEntryInput,
  RunRecurringEntryResult,
  UpdateRecurringEntryInput,
} from '../../../shared/contracts/recurring.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import * as recurring from './recurring.service.js';
import { listOccurrences, runRecurring } from './occurrences.js';

const TAG = 'Recurring entries';
const can = permitted('entry.create');

export const recurringRouter = router({
  create: can
    .meta(
      op('POST', '/recurring-entries', 'createRecurringEntry', TAG, 'Create a recurring entry', [403, 404], {
        description:
          'The template follows POST /entries’ rules (400 as there); `rrule` is an RFC 5545 RRULE without DTSTART (a part other than FREQ, INTERVAL, COUNT, UNTIL, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS is a 400 naming it). Its occurrences are made on their dates (UTC) by the scheduler.',
      }),
    )
    .input(CreateRecurringEntryInput)
    .output(RecurringEntryObject)
    .mutation(({ ctx, input }) => recurring.createRecurring(ctx.actor, input)),
  list: authedProcedure
    .meta(
      op(
        'GET',
        '/recurring-entries',
        'listRecurringEntries',
        TAG,
        'Recurring entries of a workspace (project members: their projects’)',
        [403],
      ),
    )
    .input(ListRecurringEntriesQuery)
    .output(RecurringEntryPage)
    .query(({ ctx, input }) => recurring.listRecurring(ctx.actor, input)),
  get: authedProcedure
    .meta(op('GET', '/recurring-entries/{id}', 'getRecurringEntry', TAG, 'A recurring entry', [404]))
    .input(RecurringEntryIdInput)
    .output(RecurringEntryObject)
    .query(({ ctx, input }) => recurring.getRecurring(ctx.actor, input)),
  update: can
    .meta(
      op('PATCH', '/recurring-entries/{id}', 'updateRecurringEntry', TAG, 'Update a recurring entry', [403, 404], {
        description: 'Applies to the occurrences not made yet; the entries already made stay as they are.',
      }),
    )
    .input(UpdateRecurringEntryInput)
    .output(RecurringEntryObject)
    .mutation(({ ctx, input }) => recurring.updateRecurring(ctx.actor, input)),
  delete: can
    .meta(
      op('DELETE', '/recurring-entries/{id}', 'deleteRecurringEntry', TAG, 'Deactivate a recurring entry', [403, 404], {
        description: 'No occurrence is made any more; the entries already made stay. Answers the recurring entry, inactive.',
      }),
    )
    .input(RecurringEntryIdInput)
    .output(RecurringEntryObject)
    .mutation(({ ctx, input }) => recurring.deactivateRecurring(ctx.actor, input)),
  occurrences: authedProcedure
    .meta(
      op('GET', '/recurring-entries/{id}/occurrences', 'listRecurringOccurrences', TAG, 'The occurrences of a date range', [404], {
        description:
          'The rule’s dates from `from` through `to` (at most 366 days; past and future alike): SCHEDULED (not made yet), CREATED (with its entry) or SKIPPED (with the reason).',
      }),
    )
    .input(OccurrencesQuery)
    .output(OccurrenceList)
    .query(({ ctx, input }) => listOccurrences(ctx.actor, input)),
  run: can
    .meta(
      op('POST', '/recurring-entries/{id}/run', 'runRecurringEntry', TAG, 'Make the due occurrences now', [403, 404], {
        description:
          'Makes every due occurrence up to `through` (default today, UTC; a future date is a 400), as the scheduler would: an occurrence the create refuses (a closed period, a reference gone) is SKIPPED with the reason.',
      }),
    )
    .input(RunRecurringEntryInput)
    .output(RunRecurringEntryResult)
    .mutation(({ ctx, input }) => runRecurring(ctx.actor, input)),
});
