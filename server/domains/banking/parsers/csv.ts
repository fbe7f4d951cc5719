import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { CsvMapping } from '../../../../shared/contracts/banking.js';
import { LineBatcher, textFields, type ParseContext, type StatementHeader } from './types.js';
import { parseAmount, parseDate } from './values.js';

type Column = string | number;
const COLUMN_KEYS = [
  'dateColumn',
  'amountColumn',
  'debitColumn',
  'creditColumn',
  'descriptionColumn',
  'counterpartyColumn',
  'referenceColumn',
  'externalIdColumn',
] as const;
type ColumnKey = (typeof COLUMN_KEYS)[number];

/** The delimiter that splits the first line most often (outside quotes), among , ; and tab. */
export function detectDelimiter(text: string): ',' | ';' | '\t' {
  const firstLine = text
    .slice(0, 64 * 1024)
    .split(/\r?\n/, 1)[0]
    .replace(/"[^"]*"/g, '');
  const counts = ([',', ';', '\t'] as const).map((d) => [d, firstLine.split(d).length - 1] as const);
  return counts.reduce((best, c) => (c[1] > best[1] ? c : best))[0];
}

/** Mapped columns → indexes; a header name that the header line lacks is a problem of line 1. */
function columnIndexes(mapping: CsvMapping, header: string[] | null, ctx: ParseContext): Partial<Record<ColumnKey, number>> {
  const out: Partial<Record<ColumnKey, number>> = {};
  const names = header?.map((h) => h.trim().toLowerCase());
  for (const key of COLUMN_KEYS) {
    const col: Column | undefined = mapping[key];
    if (col === undefined) continue;
    if (typeof col === 'number') out[key] = col;
    else if (!names)
      ctx.issues.add(1, `${key} "${col}" is a header name, but the mapping says the file has no header (use a 0-based index)`);
    else {
      const i = names.indexOf(col.trim().toLowerCase());
      if (i < 0) ctx.issues.add(1, `The header has no column "${col}" (${key})`);
      else out[key] = i;
    }
  }
  return out;
}

/** CSV statement (decoded text) through csv-parse's stream: records are read, checked and batched one at a time. */
export async function parseCsv(text: string, mapping: CsvMapping, ctx: ParseContext): Promise<StatementHeader> {
  const delimiter = mapping.delimiter ?? detectDelimiter(text);
  const parser = parse({ delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, info: true });
  Readable.from(chunks(text)).pipe(parser);
  const batcher = new LineBatcher(ctx);
  let columns: Partial<Record<ColumnKey, number>> | null = mapping.hasHeader ? null : columnIndexes(mapping, null, ctx);
  let periodStart: string | null = null;
  let periodEnd: string | null = null;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const lineNo = info.lines;
      if (columns === null) {
        columns = columnIndexes(mapping, record, ctx);
        continue;
      }
      if (record.every((cell) => cell.trim() === '')) continue;
      const cell = (key: ColumnKey): string | undefined => {
        const i = columns![key];
        return i === undefined ? undefined : record[i];
      };
      const problems: string[] = [];
      const missing = COLUMN_KEYS.filter((k) => columns![k] !== undefined && columns![k]! >= record.length);
      if (missing.length) {
        ctx.issues.add(lineNo, `The line has ${record.length} columns; ${missing.join(', ')} not present`);
        continue;
      }
      const bookingDate = parseDate(cell('dateColumn') ?? '', mapping.dateFormat);
      if (!bookingDate) problems.push(`"${(cell('dateColumn') ?? '').slice(0, 40)}" is not a date in ${mapping.dateFormat}`);
      const amount = csvAmount(cell, mapping, ctx.currency);
      if ('error' in amount) problems.push(amount.error);
      if (problems.length || !bookingDate || 'error' in amount) {
        for (const p of problems) ctx.issues.add(lineNo, p);
        continue;
      }
      if (!periodStart || bookingDate < periodStart) periodStart = bookingDate;
      if (!periodEnd || bookingDate > periodEnd) periodEnd = bookingDate;
      await batcher.push({
        lineNo,
        bookingDate,
        valueDate: null,
        amountCents: amount.cents,
        ...textFields({
          description: cell('descriptionColumn'),
          counterpartyName: cell('counterpartyColumn'),
          reference: cell('referenceColumn'),
          externalId: cell('externalIdColumn'),
        }),
      });
    }
  } catch (err) {
    const e = err as { lines?: number; message?: string };
    ctx.issues.add(e.lines ?? 1, `Unreadable CSV: ${(e.message ?? 'parse error').slice(0, 200)}`);
  }
  await batcher.flush();
  return { currency: null, openingBalanceCents: null, closingBalanceCents: null, periodStart, periodEnd };
}

/** The signed amount of a record: one amount column, or debit (money out, negative) and credit (money in) columns. */
function csvAmount(
  cell: (k: ColumnKey) => string | undefined,
  mapping: CsvMapping,
  currency: string,
): { cents: number } | { error: string } {
  if (mapping.amountColumn !== undefined) return parseAmount(cell('amountColumn') ?? '', mapping.decimalSeparator, currency);
  const debit = (cell('debitColumn') ?? '').trim();
  const credit = (cell('creditColumn') ?? '').trim();
  if (!debit && !credit) return { error: 'Neither the debit nor the credit column has an amount' };
  if (debit && credit) return { error: 'Both the debit and the credit column have an amount' };
  const parsed = parseAmount(debit || credit, mapping.decimalSeparator, currency);
  if ('error' in parsed) return parsed;
  return { cents: debit ? -Math.abs(parsed.cents) : Math.abs(parsed.cents) };
}

function* chunks(text: string, size = 256 * 1024): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}
