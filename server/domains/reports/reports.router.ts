import { z } from 'zod/v4';
import {
  CalendarReport,
  CalendarQuery,
  DistributionReport,
  FlowRow,
  PartyRow,
  ProjectRow,
  ReportQuery,
  SummaryReport,
  TagRow,
  TimelineQuery,
  TimelineReport,
} from '../../../shared/contracts/reports.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op } from '../../trpc/procedures.js';
import * as reports from './reports.service.js';

const TAG = 'Reports';
const COUNTED = 'Counts entries in PENDING, UNDER_REVIEW or COMPLETED; from/to inclusive; optional projectId and currency filters.';
const report = (path: `/${string}`, operationId: string, summary: string, description = '') =>
  op('GET', path, operationId, TAG, summary, [403], { description: `${description} ${COUNTED}`.trim() });

/**
 * The spec names no permission for reports: any authenticated member of the workspace
 * (or of some of its projects, who then sees those projects only) may read them.
 */
export const reportsRouter = router({
  summary: authedProcedure
    .meta(
      report(
        '/reports/summary',
        'getSummaryReport',
        'Totals, average and per-currency breakdown',
        'currency is the one currency, MIXED, or null without entries; totals across currencies are not FX-normalised.',
      ),
    )
    .input(ReportQuery)
    .output(SummaryReport)
    .query(({ ctx, input }) => reports.summary(ctx.actor, input)),
  timeline: authedProcedure
    .meta(
      report(
        '/reports/timeline',
        'getTimelineReport',
        'Income and expense per day, ISO week or month',
        'Ascending; with both from and to every period of the range appears, zeros where empty.',
      ),
    )
    .input(TimelineQuery)
    .output(TimelineReport)
    .query(({ ctx, input }) => reports.timeline(ctx.actor, input)),
  byParty: authedProcedure
    .meta(
      report(
        '/reports/by-party',
        'getByPartyReport',
        'Totals per party (INCOME to its fromParty, EXPENSE to its toParty)',
        'Entries without that party form one row with partyId null and partyName "Unassigned". Ordered by income + expense descending, then partyId.',
      ),
    )
    .input(ReportQuery)
    .output(z.array(PartyRow))
    .query(({ ctx, input }) => reports.byParty(ctx.actor, input)),
  byTag: authedProcedure
    .meta(
      report(
        '/reports/by-tag',
        'getByTagReport',
        'Totals per tag, multi-tagged entries allocated to the cent',
        'An entry with n tags gives amountCents/n to each, the remainder one cent at a time in ascending tag id; entryCount counts distinct entries; untagged entries are not listed. Ordered by totalCents descending, then tagId.',
      ),
    )
    .input(ReportQuery)
    .output(z.array(TagRow))
    .query(({ ctx, input }) => reports.byTag(ctx.actor, input)),
  byProject: authedProcedure
    .meta(
      report('/reports/by-project', 'getByProjectReport', 'Totals per project', 'Ordered by income + expense descending, then projectId.'),
    )
    .input(ReportQuery)
    .output(z.array(ProjectRow))
    .query(({ ctx, input }) => reports.byProject(ctx.actor, input)),
  flows: authedProcedure
    .meta(
      report(
        '/reports/flows',
        'getFlowsReport',
        'Money flowing from fromParty to toParty',
        'One link per (fromParty, toParty); a missing party is null / "Unassigned". Ordered by totalCents descending.',
      ),
    )
    .input(ReportQuery)
    .output(z.array(FlowRow))
    .query(async ({ ctx, input }) => {
      // the contract's response is an array (CONTRACT §11): the cap is said in a header, not in the body
      const { rows, truncated } = await reports.flows(ctx.actor, input);
      ctx.res.setHeader('X-Truncated', String(truncated));
      return rows;
    }),
  calendar: authedProcedure
    .meta(
      report(
        '/reports/calendar',
        'getCalendarReport',
        'Signed daily totals of a year (income positive, expense negative)',
        'Only days with entries, ascending; year replaces from/to.',
      ),
    )
    .input(CalendarQuery)
    .output(CalendarReport)
    .query(({ ctx, input }) => reports.calendar(ctx.actor, input)),
  distribution: authedProcedure
    .meta(
      report(
        '/reports/distribution',
        'getDistributionReport',
        'Amount distribution per entry type',
        'Quartiles as PostgreSQL percentile_cont; mean and quartiles rounded half away from zero; values ascending, at most the 10,000 smallest per type (valuesTruncated: true beyond). A type without entries has count 0 and null statistics.',
      ),
    )
    .input(ReportQuery)
    .output(DistributionReport)
    .query(({ ctx, input }) => reports.distribution(ctx.actor, input)),
});
