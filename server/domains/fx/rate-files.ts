import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { canonicalRate, rateProblem } from '../../../shared/contracts/fx.js';
import { invertRate } from './rate-inversion.js';
import { isIsoCurrency } from '../../../shared/currencies.js';

/** One rate of an imported file, with the line it came from. */
export type FileRate = { line: number; currency: string; rateDate: string; rate: string };
export type FileIssue = { line: number; message: string };
export type ParsedRateFile = { format: 'CSV' | 'ECB_XML'; rates: FileRate[]; issues: FileIssue[] };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
function isRealDate(d: string): boolean {
  const time = DATE.test(d) ? Date.parse(`${d}T00:00:00Z`) : NaN;
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === d;
}

/** The checks every row passes, whatever the format; the issue's message, or undefined. */
function rowProblem(currency: string, rateDate: string, rate: string): string | undefined {
  if (!isRealDate(rateDate)) return `date "${rateDate.slice(0, 20)}" is not a YYYY-MM-DD date`;
  if (!isIsoCurrency(currency)) return `currency "${currency.slice(0, 20)}" is not a code of the ISO 4217 list (upper case)`;
  const problem = rateProblem(rate);
  return problem ? `rate "${rate.slice(0, 40)}" ${problem}` : undefined;
}

/** Is the file ECB XML (after a byte-order mark and blanks, it starts with "<")? */
export const looksLikeXml = (text: string) => /^\uFEFF?\s*</.test(text);

/**
 * CSV `date,currency,rate` (CONTRACT §17): one rate per line, an optional header line of
 * exactly those names, blank lines skipped. `rate` is the value of one unit of `currency`
 * in the workspace's base currency, taken as written.
 */
export function parseRateCsv(text: string): ParsedRateFile {
  const rates: FileRate[] = [];
  const issues: FileIssue[] = [];
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parseCsv(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
    }) as unknown as typeof records;
  } catch (err) {
    const line = (err as { lines?: number }).lines ?? 1;
    return { format: 'CSV', rates, issues: [{ line, message: `not valid CSV (${(err as Error).message.slice(0, 200)})` }] };
  }
  records.forEach(({ record, info }, index) => {
    const line = info.lines;
    if (index === 0 && record.map((c) => c.toLowerCase()).join(',') === 'date,currency,rate') return;
    if (record.length !== 3) {
      issues.push({ line, message: `expected 3 columns (date,currency,rate), found ${record.length}` });
      return;
    }
    const [rateDate, currency, rate] = record;
    const problem = rowProblem(currency, rateDate, rate);
    if (problem) issues.push({ line, message: problem });
    else rates.push({ line, currency, rateDate, rate: canonicalRate(rate) });
  });
  return { format: 'CSV', rates, issues };
}

type Attrs = Record<string, string | undefined>;
type CubeNode = Attrs & { Cube?: CubeNode[] };
const META = XMLParser.getMetaDataSymbol() as unknown as symbol;
const lineAt = (text: string, index: number | undefined) => (index === undefined ? 1 : text.slice(0, index).split('\n').length);

/**
 * The ECB reference rates (eurofxref-daily.xml, eurofxref-hist.xml): `<Cube time="YYYY-MM-DD">`
 * days holding `<Cube currency="USD" rate="1.0956"/>`, i.e. units of the currency per EUR.
 * Each becomes the value of one unit of the currency in EUR, 1 / rate, rounded as
 * invertRate documents. Entities are not expanded (no entity tricks); line numbers come from
 * the parser's element positions.
 */
export function parseEcbXml(text: string): ParsedRateFile {
  const rates: FileRate[] = [];
  const issues: FileIssue[] = [];
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    return { format: 'ECB_XML', rates, issues: [{ line: valid.err.line, message: `not well-formed XML (${valid.err.msg})` }] };
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    removeNSPrefix: true,
    processEntities: false,
    parseAttributeValue: false,
    parseTagValue: false,
    captureMetaData: true,
    isArray: (name) => name === 'Cube',
  });
  const doc = parser.parse(text) as { Envelope?: { Cube?: CubeNode[] } };
  const outer = doc.Envelope?.Cube?.[0];
  if (!outer) return { format: 'ECB_XML', rates, issues: [{ line: 1, message: 'not an ECB eurofxref file (no Envelope/Cube element)' }] };
  const lineOf = (node: object) => lineAt(text, (node as Record<symbol, { startIndex?: number } | undefined>)[META]?.startIndex);
  for (const day of outer.Cube ?? []) {
    const rateDate = day.time ?? '';
    for (const cube of day.Cube ?? []) {
      const line = lineOf(cube);
      const currency = cube.currency ?? '';
      const perEur = cube.rate ?? '';
      // the historical file still lists currencies the euro or a redenomination replaced (HRK, CYP, …): no entry carries them
      if (/^[A-Z]{3}$/.test(currency) && !isIsoCurrency(currency)) continue;
      const problem = rowProblem(currency, rateDate, perEur);
      if (problem) {
        issues.push({ line, message: problem });
        continue;
      }
      const rate = invertRate(perEur);
      if (rate === undefined) issues.push({ line, message: `rate "${perEur}" per EUR is too large to invert within 10 decimals` });
      else rates.push({ line, currency, rateDate, rate });
    }
  }
  if (rates.length === 0 && issues.length === 0) issues.push({ line: 1, message: 'the file holds no rates' });
  return { format: 'ECB_XML', rates, issues };
}
