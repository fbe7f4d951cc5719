import { pipeline, type Readable } from 'node:stream';
import { copyOutStream } from '../../../db/copy-out.js';
import { CsvRecordEndsToCrlf } from '../../../lib/csv-line-ends.js';
import { Params } from './sql.js';

export const JOURNAL_CSV_HEADER = ['transactionId', 'date', 'kind', 'entryId', 'code', 'name', 'debitCents', 'creditCents', 'description'];

/** SQL: the text in `x`, with a leading apostrophe when a spreadsheet would read it as a formula (= + - @ tab CR first). */
const textCell = (x: string) => `CASE WHEN ascii(${x}) IN (61, 43, 45, 64, 9, 13) THEN '''' || ${x} ELSE ${x} END`;

/** The journal's lines of [from, to] in date, transaction and line order: transactions from their (workspace, date) index, lines by transaction. */
export function journalRange(p: Params, workspaceId: number, from: string | undefined, to: string | undefined): string {
  const where = [`t.workspace_id = ${p.add(workspaceId)}`];
  if (from !== undefined) where.push(`t.txn_date >= ${p.add(from)}::date`);
  if (to !== undefined) where.push(`t.txn_date <= ${p.add(to)}::date`);
  return where.join(' AND ');
}

/**
 * GET /ledger/journal/export?format=csv: one RFC 4180 row per journal line with a header row, written
 * by PostgreSQL (COPY … TO STDOUT, FORMAT csv) from one snapshot and streamed with backpressure; the
 * server only turns LF record ends into CRLF.
 */
export async function journalCsv(workspaceId: number, from: string | undefined, to: string | undefined): Promise<Readable> {
  const p = new Params();
  const where = journalRange(p, workspaceId, from, to);
  const sql = `SELECT t.id, to_char(t.txn_date, 'YYYY-MM-DD'), t.kind, t.entry_id, ${textCell('c.code')} AS code, ${textCell('c.name')} AS name,
                      l.debit_cents, l.credit_cents, ${textCell('COALESCE(l.description, t.description)')} AS description
                 FROM journal_transactions t
                 JOIN journal_lines l ON l.workspace_id = t.workspace_id AND l.transaction_id = t.id
                 JOIN accounting_categories c ON c.workspace_id = l.workspace_id AND c.id = l.category_id
                WHERE ${where}
                ORDER BY t.txn_date, t.id, l.line_no`;
  const rows = await copyOutStream(sql, p.values, '(FORMAT csv, FORCE_QUOTE (code, name, description))');
  const csv = new CsvRecordEndsToCrlf();
  csv.push(`${JOURNAL_CSV_HEADER.join(',')}\r\n`, 'utf8');
  return pipeline(rows, csv, () => undefined);
}
