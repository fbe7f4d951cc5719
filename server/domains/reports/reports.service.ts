import { scope, type Actor } from '../../lib/scope.js';
import type {
  CalendarDay,
  CalendarQuery,
  DistributionReport,
  FlowRow,
  PartyRow,
  ProjectRow,
  ReportQuery,
  SummaryReport,
  TagRow,
  TimelineQuery,
  TimelineRow,
} from '../../../shared/contracts/reports.js';
import { summaryReport } from './queries/summary.js';
import { timelineReport } from './queries/timeline.js';
import { byPartyReport } from './queries/by-party.js';
import { byTagReport } from './queries/by-tag.js';
import { byProjectReport } from './queries/by-project.js';
import { flowsReport } from './queries/flows.js';
import { runtime } from '../../runtime.js';
import { calendarReport } from './queries/calendar.js';
import { distributionReport } from './queries/distribution.js';
import { inReportSnapshot, type ReportScope } from './report-sql.js';

/**
 * Reports are open to any member of the workspace (CONTRACT §11): a project-only member
 * gets the same reports over the projects it belongs to (403 when it has none there).
 * Access is decided before any query; each report then reads one snapshot.
 */
function run<T>(actor: Actor, workspaceId: number, report: (s: ReportScope) => Promise<T>): Promise<T> {
  const reach = scope.workspaceReach(actor, workspaceId);
  return inReportSnapshot((tx) => report({ reach, tx }));
}

export const summary = (actor: Actor, q: ReportQuery): Promise<SummaryReport> => run(actor, q.workspaceId, (s) => summaryReport(s, q));

export const timeline = (actor: Actor, q: TimelineQuery): Promise<TimelineRow[]> =>
  run(actor, q.workspaceId, (s) => timelineReport(s, q, q.groupBy));

export const byParty = (actor: Actor, q: ReportQuery): Promise<PartyRow[]> => run(actor, q.workspaceId, (s) => byPartyReport(s, q));

export const byTag = (actor: Actor, q: ReportQuery): Promise<TagRow[]> => run(actor, q.workspaceId, (s) => byTagReport(s, q));

export const byProject = (actor: Actor, q: ReportQuery): Promise<ProjectRow[]> => run(actor, q.workspaceId, (s) => byProjectReport(s, q));

/** The largest REPORT_FLOWS_LIMIT links; `truncated` when there are more. */
export const flows = (actor: Actor, q: ReportQuery): Promise<{ rows: FlowRow[]; truncated: boolean }> =>
  run(actor, q.workspaceId, (s) => flowsReport(s, q, runtime().config.REPORT_FLOWS_LIMIT));

export const calendar = (actor: Actor, q: CalendarQuery): Promise<CalendarDay[]> =>
  run(actor, q.workspaceId, (s) => calendarReport(s, q, q.year));

export const distribution = (actor: Actor, q: ReportQuery): Promise<DistributionReport> =>
  run(actor, q.workspaceId, (s) => distributionReport(s, q));
