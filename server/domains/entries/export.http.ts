import { Router, type Request, type Response } from 'express';
import { Readable } from 'node:stream';
import { z } from 'zod/v4';
import { cursorBatches } from '../../db/cursor.js';
import { AppError, forbidden } from '../../lib/errors.js';
import { currencyExponentSql } from '../../lib/money.js';
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

/**
 * SQL: the text in `x` as an RFC 4180 field ('' for NULL); a cell a spreadsheet would read as a
 * formula (= + - @ tab CR first) gets a leading apostrophe.
 */
const textCell = (x: string) =>
  `COALESCE('"' || replace(CASE WHEN ${x} ~ '^[=+@\\t\\r-]' THEN '''' || ${x} ELSE ${x} END, '"', '""') || '"', '')`;

/** SQL: amount_cents in major units with the currency's ISO 4217 exponent (exact, like formatMinorUnits). */
const AMOUNT_CELL = `CASE WHEN fx.exponent = 0 THEN e.amount_cents::text
  ELSE CASE WHEN e.amount_cents < 0 THEN '-' ELSE '' END || (abs(e.amount_cents) / fx.scale)::text || '.'
       || lpad((abs(e.amount_cents) % fx.scale)::text, fx.exponent, '0') END`;

/**
 * Each CSV line is built by PostgreSQL, CRLF included: the server only joins a batch of lines
 * and writes it, so an export of a million rows costs little CPU and no per-row objects.
 */
function csvLinesSql(where: string, orderBy: string): string {
  return `SELECT e.id::text || ',' || e.entry_date::text || ',' || e.entry_type || ',' || e.entry_status || ','
       || ${AMOUNT_CELL} || ',' || rtrim(e.base_currency) || ','
       || ${textCell('e.description')} || ',' || ${textCell('e.reference')} || ','
       || ${textCell('fp.name')} || ',' || ${textCell('tp.name')} || ','
       || CASE WHEN e.is_reconciled THEN 'true' ELSE 'false' END || ',' || ${textCell('tg.names')} || E'\\r\\n'
    FROM entries e
    CROSS JOIN LATERAL (SELECT x AS exponent, (10 ^ x)::bigint AS scale FROM (SELECT ${currencyExponentSql('e.base_currency')} AS x) c) fx
    LEFT JOIN parties fp ON fp.id = e.from_party_id
    LEFT JOIN parties tp ON tp.id = e.to_party_id
    LEFT JOIN LATERAL (SELECT string_agg(t.name, '; ' ORDER BY t.name) AS names
                         FROM entry_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entry_id = e.id) tg ON true
   WHERE ${where} ORDER BY ${orderBy}`;
}

async function* csvText(where: string, orderBy: string, params: unknown[]): AsyncGenerator<string> {
  yield `${CSV_HEADER.join(',')}\r\n`;
  for await (const batch of cursorBatches<[string]>(csvLinesSql(where, orderBy), params, { rowMode: 'array' })) {
    let chunk = '';
    for (const [line] of batch) chunk += line;
    yield chunk;
  }
}

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
  const text = Readable.from(csvText(where, orderBy, params), { objectMode: false });
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="entries-${filters.workspaceId}-${todayUtc()}.csv"`);
  await streamToResponse(res, text);
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
