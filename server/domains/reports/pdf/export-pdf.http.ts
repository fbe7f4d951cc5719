import { Router, type Request, type Response } from 'express';
import { z } from 'zod/v4';
import { parseInput } from '../../../lib/errors.js';
import { ReportQuery } from '../../../../shared/contracts/reports.js';
import type { Actor } from '../../../lib/scope.js';
import { guardedRoute } from '../../../http/guarded-route.js';
import { documentExpressPath } from '../../../http/express-paths.js';
import { loadPdfReportData } from './report-data.js';
import { renderReportPdf } from './render-report.js';

export const PDF_PATH = '/reports/export/pdf';

/** GET /reports/export/pdf (entry.export, CONTRACT §11): the period's report as a printable PDF. */
async function exportPdf(req: Request, res: Response, actor: Actor): Promise<void> {
  const query = parseInput(ReportQuery, req.query);
  const data = await loadPdfReportData(actor, query);
  const doc = renderReportPdf(data);
  res.status(200);
  res.setHeader('Content-Type', 'application/pdf');
  res.setHeader(
    'Content-Disposition',
    `attachment; filename="report-${query.workspaceId}-${query.from ?? 'start'}-${query.to ?? 'end'}.pdf"`,
  );
  doc.pipe(res);
  doc.end();
}

export function reportsPdfRoutes(): Router {
  const r = Router();
  r.get(PDF_PATH, guardedRoute('exportReportPdf', { permission: 'entry.export' }, exportPdf));
  return r;
}

documentExpressPath(PDF_PATH, {
  get: {
    operationId: 'exportReportPdf',
    tags: ['Reports'],
    summary: 'The report of a period as a printable PDF',
    description:
      'One to three A4 pages: title, workspace and period, summary, currency breakdown, a monthly income/expense bar chart, ' +
      'totals by project and the top parties. Needs entry.export. Same filters and counted statuses as the JSON reports.',
    security: [{ Authorization: [] }],
    requestParams: { query: ReportQuery },
    responses: {
      '200': {
        description: 'The PDF, as an attachment',
        headers: {
          'Content-Disposition': {
            description: 'attachment; filename="report-<workspaceId>-<from>-<to>.pdf"',
            schema: {
              type: 'string',
              maxLength: 100,
              pattern: '^attachment; filename="report-[0-9]+-([0-9]{4}-[0-9]{2}-[0-9]{2}|start)-([0-9]{4}-[0-9]{2}-[0-9]{2}|end)\\.pdf"$',
            },
          },
        },
        content: { 'application/pdf': { schema: z.string().meta({ format: 'binary' }) } },
      },
      '400': { description: 'Invalid query (missing workspaceId, bad date, from after to)' },
      '401': { description: 'Not authenticated' },
      '403': { description: 'Missing entry.export or foreign workspace' },
    },
  },
});
