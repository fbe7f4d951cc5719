import { pipeline, type Readable } from 'node:stream';
import { copyOutStream } from '../../db/copy-out.js';
import { CsvRecordEndsToCrlf } from '../../lib/csv-line-ends.js';
import { minorUnitValuesSql } from '../../lib/money.js';
import type { WorkspaceReach } from '../../lib/scope.js';
import type { EntryFilters } from '../../../shared/contracts/entries.js';
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

/** SQL: the text in `x`, with a leading apostrophe when a spreadsheet would read it as a formula (= + - @ tab CR first). */
const textCell = (x: string) => `CASE WHEN ascii(${x}) IN (61, 43, 45, 64, 9, 13) THEN '''' || ${x} ELSE ${x} END`;

/** The text columns, always quoted: an empty text is "", a missing one an empty cell. */
const QUOTED_COLUMNS = ['description', 'reference', 'from_party', 'to_party', 'tags'];

/** The export's rows, a column per CSV cell in CSV_HEADER's order, each formatted by PostgreSQL. */
function csvRowsSql(where: string, orderBy: string): string {
  return `SELECT e.id, e.entry_date, e.entry_type, e.entry_status, (e.amount_cents * COALESCE(mu.unit, 0.01))::text AS amount,
       rtrim(e.base_currency) AS currency, ${textCell('e.description')} AS description,
       ${textCell('e.reference')} AS reference, ${textCell('fp.name')} AS from_party, ${textCell('tp.name')} AS to_party,
       CASE WHEN e.is_reconciled THEN 'true' ELSE 'false' END AS reconciled, ${textCell('tg.names')} AS tags
    FROM entries e
    LEFT JOIN (VALUES ${minorUnitValuesSql()}) AS mu(code, unit) ON mu.code = rtrim(e.base_currency)
    LEFT JOIN parties fp ON fp.workspace_id = e.workspace_id AND fp.id = e.from_party_id
    LEFT JOIN parties tp ON tp.workspace_id = e.workspace_id AND tp.id = e.to_party_id
    LEFT JOIN LATERAL (SELECT string_agg(t.name, '; ' ORDER BY t.name) AS names
                         FROM entry_tags et JOIN tags t ON t.workspace_id = et.workspace_id AND t.id = et.tag_id
                        WHERE et.workspace_id = e.workspace_id AND et.entry_id = e.id) tg ON true
   WHERE ${where} ORDER BY ${orderBy}`;
}

/**
 * The CSV export of CONTRACT §5 for the entries `filters` select within `reach`, as a byte stream:
 * PostgreSQL writes the file (`COPY (…) TO STDOUT (FORMAT csv)`, RFC 4180 quoting) and the server
 * only turns its LF record ends into CRLF, so a million rows cost little server CPU and no per-row
 * objects. `byteOrderMark`: the file starts with U+FEFF (EF BB BF), for Excel.
 */
export async function entriesCsv(filters: EntryFilters, reach: WorkspaceReach, opts: { byteOrderMark?: boolean } = {}): Promise<Readable> {
  const { where, orderBy, params } = entryFilterSql(filters, reach);
  const rows = await copyOutStream(csvRowsSql(where, orderBy), params, `(FORMAT csv, FORCE_QUOTE (${QUOTED_COLUMNS.join(', ')}))`);
  const csv = new CsvRecordEndsToCrlf();
  csv.push(`${opts.byteOrderMark ? '\uFEFF' : ''}${CSV_HEADER.join(',')}\r\n`, 'utf8');
  // an error on either side, or the reader going away, destroys both (and so closes the COPY's connection)
  return pipeline(rows, csv, () => undefined);
}
