import { WorkspaceQuery } from '../../../../shared/contracts/common.js';
import { Dashboard, ExceptionSummary } from '../../../../shared/contracts/accounting.js';
import { router } from '../../../trpc/init.js';
import { authedProcedure, op } from '../../../trpc/procedures.js';
import * as summaries from './dashboard.service.js';

const TAG = 'Accounting dashboard';
const MEMBERS = 'Any member of the workspace (no particular permission); counted in SQL.';

export const accountingDashboardRouter = router({
  exceptionSummary: authedProcedure
    .meta(
      op('GET', '/accounting/exceptions/summary', 'getExceptionSummary', TAG, "Counts of the workspace's accounting exceptions", [403], {
        description: MEMBERS,
      }),
    )
    .input(WorkspaceQuery)
    .output(ExceptionSummary)
    .query(({ ctx, input }) => summaries.exceptionSummary(ctx.actor, input.workspaceId)),
  dashboard: authedProcedure
    .meta(
      op('GET', '/accounting/dashboard', 'getAccountingDashboard', TAG, 'Review and sync counters, connections and exceptions', [403], {
        description: MEMBERS,
      }),
    )
    .input(WorkspaceQuery)
    .output(Dashboard)
    .query(({ ctx, input }) => summaries.dashboard(ctx.actor, input.workspaceId)),
});
