import { z } from 'zod/v4';
import { Success, WorkspaceQuery } from '../../../shared/contracts/common.js';
import { CreatePeriodInput, PeriodIdInput, PeriodObject } from '../../../shared/contracts/periods.js';
import { router } from '../../trpc/init.js';
import { op, permitted } from '../../trpc/procedures.js';
import * as periods from './periods.service.js';

const TAG = 'Accounting periods';
const can = permitted('accounting.periods');

export const periodsRouter = router({
  list: can
    .meta(op('GET', '/accounting/periods', 'listPeriods', TAG, 'List the accounting periods of a workspace', [403]))
    .input(WorkspaceQuery)
    .output(z.array(PeriodObject))
    .query(({ ctx, input }) => periods.listPeriods(ctx.actor, input.workspaceId)),
  create: can
    .meta(op('POST', '/accounting/periods', 'createPeriod', TAG, 'Create an accounting period', [403, 409]))
    .input(CreatePeriodInput)
    .output(PeriodObject)
    .mutation(({ ctx, input }) => periods.createPeriod(ctx.actor, input)),
  get: can
    .meta(op('GET', '/accounting/periods/{id}', 'getPeriod', TAG, 'Get an accounting period', [403, 404]))
    .input(PeriodIdInput)
    .output(PeriodObject)
    .query(({ ctx, input }) => periods.getPeriod(ctx.actor, input.id)),
  close: can
    .meta(op('PATCH', '/accounting/periods/{id}/close', 'closePeriod', TAG, 'Close an OPEN period', [403, 404, 409]))
    .input(PeriodIdInput)
    .output(PeriodObject)
    .mutation(({ ctx, input }) => periods.closePeriod(ctx.actor, input.id)),
  reopen: can
    .meta(op('PATCH', '/accounting/periods/{id}/reopen', 'reopenPeriod', TAG, 'Reopen a CLOSED period', [403, 404, 409]))
    .input(PeriodIdInput)
    .output(PeriodObject)
    .mutation(({ ctx, input }) => periods.reopenPeriod(ctx.actor, input.id)),
  delete: can
    .meta(op('DELETE', '/accounting/periods/{id}', 'deletePeriod', TAG, 'Delete an OPEN period', [403, 404, 409]))
    .input(PeriodIdInput)
    .output(Success)
    .mutation(({ ctx, input }) => periods.deletePeriod(ctx.actor, input.id)),
});
