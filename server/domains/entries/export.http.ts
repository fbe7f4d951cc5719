import { Router, type Request, type Response } from 'express';
import { z } from 'zod/v4';
import { parseInput } from '../../lib/errors.js';
import { todayUtc } from '../../lib/dates.js';
import { scope, type Actor } from '../../lib/scope.js';
import { QueryBool } from '../../../shared/contracts/common.js';
import { EntryFilters, EntryFiltersChecked } from '../../../shared/contracts/entries.js';
import { guardedRoute } from '../../http/guarded-route.js';
import { streamToResponse } from '../../http/streams.js';
import { documentExpressPath } from '../../http/express-paths.js';
import { CSV_HEADER, entriesCsv } from './export.service.js';

const ExportOptions = z.object({
  bom: QueryBool.optional().describe('true: the file starts with a UTF-8 byte-order mark (EF BB BF), so that Excel reads it as UTF-8'),
});

/** GET /entries/export/csv: every matching row, streamed from a server-side cursor. */
async function exportCsv(req: Request, res: Response, actor: Actor): Promise<void> {
  const { bom, ...query } = req.query;
  const options = parseInput(ExportOptions, { bom });
  const filters = parseInput(EntryFiltersChecked, query);
  const csv = await entriesCsv(filters, scope.workspaceReach(actor, filters.workspaceId), { byteOrderMark: options.bom });
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="entries-${filters.workspaceId}-${todayUtc()}.csv"`);
  await streamToResponse(res, csv);
}

export function entriesExportRoutes(): Router {
  const r = Router();
  r.get('/entries/export/csv', guardedRoute('exportEntriesCsv', { permission: 'entry.export' }, exportCsv));
  return r;
}

documentExpressPath('/entries/export/csv', {
  get: {
    operationId: 'exportEntriesCsv',
    tags: ['Entries'],
    summary: 'Export matching entries as CSV (streamed, no paging)',
    security: [{ Authorization: [] }],
    requestParams: { query: EntryFilters.extend(ExportOptions.shape) },
    responses: {
      '200': {
        description: `RFC 4180 CSV (UTF-8; with a byte-order mark when bom=true) with the header ${CSV_HEADER.join(',')}`,
        content: { 'text/csv': { schema: z.string() } },
      },
      '400': { description: 'Invalid filters' },
      '401': { description: 'Not authenticated' },
      '403': { description: 'Missing entry.export or foreign workspace' },
    },
  },
});
