import { scope, type Actor } from '../../../lib/scope.js';
import type { PartyRow, ProjectRow, ReportQuery, SummaryReport, TimelineRow } from '../../../../shared/contracts/reports.js';
import { countedEntriesWhere, inReportSnapshot, Params, selectRows, type ReportScope } from '../report-sql.js';
import { summaryReport } from '../queries/summary.js';
import { byProjectReport } from '../queries/by-project.js';
import { byPartyReport } from '../queries/by-party.js';
import { timelineReport } from '../queries/timeline.js';

/** The chart shows at most this many months: the last ones of the period. */
export const CHART_MONTHS = 24;
export const TOP_PARTIES = 10;

export type PdfReportData = {
  workspaceName: string;
  projectName: string | null;
  query: ReportQuery;
  summary: SummaryReport;
  projects: ProjectRow[];
  topParties: PartyRow[];
  months: TimelineRow[];
  /** the chart leaves out earlier months of a longer period */
  chartClipped: boolean;
  /** amounts are the entries' base-currency values (CONTRACT §17); summary.unconverted lists what lacks a rate */
  normalized: boolean;
};

const monthStart = (date: string) => `${date.slice(0, 7)}-01`;
function monthsBefore(date: string, n: number): string {
  const d = new Date(`${monthStart(date)}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - n);
  return d.toISOString().slice(0, 10);
}

/** The months the chart covers: the period, or the span of the counted entries when open-ended. */
async function chartRange(s: ReportScope, q: ReportQuery): Promise<{ from: string; to: string; clipped: boolean } | null> {
  let { from, to } = q;
  if (from === undefined || to === undefined) {
    const params = new Params();
    const [span] = await selectRows<{ first: string | null; last: string | null }>(
      `SELECT min(e.entry_date) AS first, max(e.entry_date) AS last FROM entries e WHERE ${countedEntriesWhere(q, s.reach, params)}`,
      params,
      s.tx,
    );
    from ??= span.first ?? undefined;
    to ??= span.last ?? undefined;
  }
  if (from === undefined || to === undefined) return null;
  const earliest = monthsBefore(to, CHART_MONTHS - 1);
  return from < earliest ? { from: earliest, to, clipped: true } : { from, to, clipped: false };
}

/**
 * "When rates exist" (CONTRACT §17): some counted entry in a currency other than the base one
 * was converted. Base-currency entries always are (rate "1"), so a report without any usable
 * rate keeps today's layout instead of leading with a partial total.
 */
function convertsOtherCurrencies(n: SummaryReport): boolean {
  const foreign = n.currencyBreakdown.filter((r) => r.currency !== n.currency).reduce((sum, r) => sum + r.entryCount, 0);
  return foreign > (n.unconverted?.entryCount ?? 0);
}

/** Everything the PDF shows, read in one read-only snapshot so its sections agree with each other. */
export async function loadPdfReportData(actor: Actor, q: ReportQuery): Promise<PdfReportData> {
  const reach = scope.workspaceReach(actor, q.workspaceId);
  return inReportSnapshot(async (tx) => {
    const s: ReportScope = { reach, tx };
    const projectId = q.projectId !== undefined && (reach.all || reach.projectIds.includes(q.projectId)) ? q.projectId : null;
    const names = new Params();
    const [header] = await selectRows<{ workspace_name: string; project_name: string | null }>(
      `SELECT w.name AS workspace_name,
              (SELECT p.name FROM projects p WHERE p.id = ${names.add(projectId)}::int AND p.workspace_id = w.id) AS project_name
         FROM workspaces w WHERE w.id = ${names.add(q.workspaceId)}`,
      names,
      tx,
    );
    // CONTRACT §17: the PDF leads with normalised totals when rates exist (normalize=false keeps the plain report)
    const normalizedSummary = q.normalize === false ? undefined : await summaryReport(s, { ...q, normalize: true });
    const normalized = normalizedSummary !== undefined && convertsOtherCurrencies(normalizedSummary);
    const f: ReportQuery = { ...q, normalize: normalized };
    const range = await chartRange(s, f);
    return {
      workspaceName: header.workspace_name,
      projectName: header.project_name,
      query: q,
      summary: normalized ? normalizedSummary : await summaryReport(s, f),
      projects: await byProjectReport(s, f),
      topParties: await byPartyReport(s, f, TOP_PARTIES),
      months: range ? await timelineReport(s, { ...f, from: range.from, to: range.to }, 'month') : [],
      chartClipped: range?.clipped ?? false,
      normalized,
    };
  });
}
