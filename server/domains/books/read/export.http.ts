import { Router, type Request, type Response } from 'express';
import { z } from 'zod/v4';
import { JournalExportQuery } from '../../../../shared/contracts/books-read.js';
import { guardedRoute } from '../../../http/guarded-route.js';
import { documentExpressPath } from '../../../http/express-paths.js';
import { streamToResponse } from '../../../http/streams.js';
import { todayUtc } from '../../../lib/dates.js';
import { parseInput } from '../../../lib/errors.js';
import type { Actor } from '../../../lib/scope.js';
import { requireBooksReader } from './access.js';
import { JOURNAL_CSV_HEADER, journalCsv } from './export-csv.js';
import { journalSaft } from './export-saft.js';

/** GET /ledger/journal/export (CONTRACT §23): the journal of a range as CSV or SAF-T Financial 1.30, streamed. */
async function exportJournal(req: Request, res: Response, actor: Actor): Promise<void> {
  const q = parseInput(JournalExportQuery, req.query);
  requireBooksReader(actor, q.workspaceId);
  const name = `journal-${q.workspaceId}-${todayUtc()}`;
  if (q.format === 'saft') {
    const xml = await journalSaft(q.workspaceId, q, actor.name);
    res.status(200);
    res.setHeader('Content-Type', 'application/xml; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${name}.xml"`);
    await streamToResponse(res, xml);
    return;
  }
  const csv = await journalCsv(q.workspaceId, q.from, q.to);
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${name}.csv"`);
  await streamToResponse(res, csv);
}

export function journalExportRoutes(): Router {
  const r = Router();
  r.get('/ledger/journal/export', guardedRoute('exportJournal', { permission: 'entry.export' }, exportJournal));
  return r;
}

documentExpressPath('/ledger/journal/export', {
  get: {
    operationId: 'exportJournal',
    tags: ['Books'],
    summary: 'Export the journal of a range as CSV or SAF-T Financial 1.30 (streamed)',
    description:
      'format=csv: one RFC 4180 row per journal line with a header row; format=saft: the SAF-T Financial XML of the Norwegian Tax ' +
      'Administration’s schema 1.30, the accounts with their opening and closing balances for the range and every transaction of it. ' +
      'Needs entry.export and workspace membership (project members and API keys limited to projects: 403).',
    security: [{ Authorization: [] }],
    requestParams: { query: JournalExportQuery },
    responses: {
      '200': {
        description: `format=csv: RFC 4180 CSV with the header ${JOURNAL_CSV_HEADER.join(',')}; format=saft: SAF-T Financial 1.30 XML`,
        content: { 'text/csv': { schema: z.string() }, 'application/xml': { schema: z.string() } },
      },
      '400': { description: 'Invalid query' },
      '401': { description: 'Not authenticated' },
      '403': { description: 'Missing entry.export, not a member of the workspace, or a project-only member' },
      '409': { description: 'format=saft: a total or balance of the range has more than the 18 digits SAFmonetaryType allows' },
    },
  },
});
