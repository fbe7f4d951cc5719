import { cursorBatches } from '../../db/cursor.js';
import { currencyExponentSql } from '../../lib/money.js';
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

/** The CSV export of CONTRACT §5 for the entries `filters` select within `reach`: the header line, then batches of lines. */
export async function* entriesCsv(filters: EntryFilters, reach: WorkspaceReach): AsyncGenerator<string> {
  const { where, orderBy, params } = entryFilterSql(filters, reach);
  yield `${CSV_HEADER.join(',')}\r\n`;
  for await (const batch of cursorBatches<[string]>(csvLinesSql(where, orderBy), params, { rowMode: 'array' })) {
    let chunk = '';
    for (const [line] of batch) chunk += line;
    yield chunk;
  }
}
