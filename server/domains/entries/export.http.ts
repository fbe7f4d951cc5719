import { Router, type Request, type Response } from 'express';
import { Readable, Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import { z } from 'zod/v4';
import { cursorRows } from '../../db/cursor.js';
import { AppError, forbidden } from '../../lib/errors.js';
import { formatMinorUnits } from '../../lib/money.js';
import { todayUtc } from '../../lib/dates.js';
import { scope } from '../../lib/scope.js';
import { EntryFilters, EntryFiltersChecked } from '../../../shared/contracts/entries.js';
import { authenticateRequest } from '../auth/authenticate.js';
import { sendError } from '../../http/errors.js';
import { streamToResponse } from '../../http/streams.js';
import { documentExpressPath } from '../../http/express-paths.js';
import { entryFilterSql } from './entry-filters.js';

export const CSV_HEADER = [
  'ID',
  'Date',
  'Type',
  'Status',
  'Amount',
  'Currency',
  'Description',
  'Reference',
  'From Party',
  'To Party',
  'Reconciled',
  'Tags',
];

type CsvRow = {
  id: string;
  entry_date: string;
  entry_type: string;
  entry_status: string;
  amount_cents: string;
  base_currency: string;
  description: string | null;
  reference: string | null;
  from_party: string | null;
  to_party: string | null;
  is_reconciled: boolean;
  tags: string | null;
};

/** A text cell a spreadsheet would read as a formula gets a leading apostrophe. */
export const neutraliseFormula = (s: string | null) => (s && /^[=+\-@\t\r]/.test(s) ? `'${s}` : (s ?? ''));

const toRecord = (r: CsvRow) => [
  r.id,
  r.entry_date,
  r.entry_type,
  r.entry_status,
  formatMinorUnits(Number(r.amount_cents), r.base_currency.trim()),
  r.base_currency.trim(),
  neutraliseFormula(r.description),
  neutraliseFormula(r.reference),
  neutraliseFormula(r.from_party),
  neutraliseFormula(r.to_party),
  r.is_reconciled ? 'true' : 'false',
  neutraliseFormula(r.tags),
];

function parseQuery(req: Request) {
  const parsed = EntryFiltersChecked.safeParse(req.query);
  if (!parsed.success) {
    const err = new AppError('BAD_REQUEST', 'Input validation failed', { cause: parsed.error });
    throw err;
  }
  return parsed.data;
}

/** GET /entries/export/csv: every matching row, streamed from a server-side cursor. */
async function exportCsv(req: Request, res: Response): Promise<void> {
  const actor = await authenticateRequest(req.get('Authorization'));
  if (!actor.permissions.has('entry.export')) throw forbidden('Missing permission entry.export');
  const filters = parseQuery(req);
  const reach = scope.workspaceReach(actor, filters.workspaceId);
  const { where, orderBy, params } = entryFilterSql(filters, reach);
  const sql = `SELECT e.id::text, e.entry_date::text, e.entry_type, e.entry_status, e.amount_cents::text, e.base_currency, e.description, e.reference,
                      fp.name AS from_party, tp.name AS to_party, e.is_reconciled,
                      (SELECT string_agg(t.name, '; ' ORDER BY t.name) FROM entry_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entry_id = e.id) AS tags
                 FROM entries e
                 LEFT JOIN parties fp ON fp.id = e.from_party_id
                 LEFT JOIN parties tp ON tp.id = e.to_party_id
                WHERE ${where} ORDER BY ${orderBy}`;
  const rows = Readable.from(cursorRows<CsvRow>(sql, params));
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="entries-${filters.workspaceId}-${todayUtc()}.csv"`);
  const toRecords = new Transform({
    objectMode: true,
    transform(row: CsvRow, _enc, done) {
      done(null, toRecord(row));
    },
  });
  await streamToResponse(res, rows, toRecords, stringify({ header: true, columns: CSV_HEADER, record_delimiter: 'windows' }));
}

export function entriesExportRoutes(): Router {
  const r = Router();
  r.get('/entries/export/csv', (req, res) => {
    exportCsv(req, res).catch((err) => sendError(res, err));
  });
  return r;
}

documentExpressPath('/entries/export/csv', {
  get: {
    operationId: 'exportEntriesCsv',
    tags: ['Entries'],
    summary: 'Export matching entries as CSV (streamed, no paging)',
    security: [{ Authorization: [] }],
    requestParams: { query: EntryFilters },
    responses: {
      '200': {
        description:
          'RFC 4180 CSV with the header ID,Date,Type,Status,Amount,Currency,Description,Reference,From Party,To Party,Reconciled,Tags',
        content: { 'text/csv': { schema: z.string() } },
      },
      '400': { description: 'Invalid filters' },
      '401': { description: 'Not authenticated' },
      '403': { description: 'Missing entry.export or foreign workspace' },
    },
  },
});
