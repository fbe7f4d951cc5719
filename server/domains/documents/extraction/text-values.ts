import { isoDate } from './amounts.js';

/** Values in the text of invoices and receipts: amounts with their currency, dates in the common notations. */

const SYMBOLS: Record<string, string> = { '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR', '₽': 'RUB', '₩': 'KRW', '₺': 'TRY', zł: 'PLN' };
/** Codes recognised in text (a word of three capitals is not a currency unless it is one of these). */
export const KNOWN_CODES = new Set(
  (
    'EUR USD GBP CHF JPY CAD AUD NZD SEK NOK DKK PLN CZK HUF RON BGN HRK ISK TRY INR CNY HKD SGD ZAR MXN BRL ' +
    'ILS AED SAR KRW TWD THB MYR IDR PHP VND CLP COP PEN ARS UAH RUB KWD BHD OMR JOD TND'
  ).split(' '),
);
const DOLLAR_CODES = ['CAD', 'AUD', 'NZD', 'SGD', 'HKD', 'MXN', 'USD'];

export type Amount = { minor: number; currency: string | null; currencyConfidence: number; decimals: number };

const AMOUNT_RE =
  /(?<![\w.,])(?:([A-Z]{3}|[€£¥₹₽₩₺$]|zł)\s?)?(-|−)?(\d{1,3}(?:[., \u00a0\u202f'’]\d{3})+(?:[.,]\d{1,3})?|\d+(?:[.,]\d{1,3})?)(?:\s?([A-Z]{3}|[€£¥₹₽₩₺$]|zł))?(?![\w])/g;

/** A number as written ("1.234,56", "1,234.56", "1 234,56", "1234.5"): its digits and how many are decimals. */
function parseNumber(raw: string): { digits: string; decimals: number } | null {
  const s = raw.replace(/[\s\u00a0\u202f'’]/g, '');
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  const sep = Math.max(lastDot, lastComma);
  let intPart = s;
  let frac = '';
  if (sep >= 0) {
    const after = s.slice(sep + 1);
    const both = lastDot >= 0 && lastComma >= 0;
    const single = s.split(s[sep]).length - 1 === 1;
    if (both || (single && after.length !== 3)) {
      intPart = s.slice(0, sep);
      frac = after;
    }
  }
  intPart = intPart.replace(/[.,]/g, '');
  if (!/^\d+$/.test(intPart) || !/^\d*$/.test(frac)) return null;
  return { digits: intPart + frac, decimals: frac.length };
}

function currencyOf(token: string | undefined, docCodes: Set<string>): { code: string | null; confidence: number } {
  if (!token) return { code: null, confidence: 0 };
  if (token === '$') {
    const code = DOLLAR_CODES.find((c) => docCodes.has(c)) ?? 'USD';
    return { code, confidence: docCodes.has(code) ? 0.85 : 0.6 };
  }
  if (SYMBOLS[token]) return { code: SYMBOLS[token], confidence: 0.85 };
  if (KNOWN_CODES.has(token)) return { code: token, confidence: 0.9 };
  return { code: null, confidence: 0 };
}

/** Every amount in a line, in order; `minor` counts hundredths (or the written decimals when the currency has other). */
export function amountsIn(line: string, docCodes: Set<string>): Amount[] {
  const out: Amount[] = [];
  for (const m of line.matchAll(AMOUNT_RE)) {
    const before = m[1] && (KNOWN_CODES.has(m[1]) || !/^[A-Z]{3}$/.test(m[1])) ? m[1] : undefined;
    const after = m[4] && (KNOWN_CODES.has(m[4]) || !/^[A-Z]{3}$/.test(m[4])) ? m[4] : undefined;
    const num = parseNumber(m[3]);
    if (!num) continue;
    const cur = currencyOf(before ?? after, docCodes);
    const sign = m[2] ? -1 : 1;
    const value = Number(num.digits);
    if (!Number.isSafeInteger(value)) continue;
    out.push({ minor: sign * value, currency: cur.code, currencyConfidence: cur.confidence, decimals: num.decimals });
  }
  return out;
}

/** Minor units of `currency` from an amount read with `decimals` written decimals. */
export function toMinor(a: Amount, exponent: number): number {
  const diff = exponent - a.decimals;
  return diff >= 0 ? a.minor * 10 ** diff : Math.round(a.minor / 10 ** -diff);
}

const MONTHS: Record<string, number> = {};
const monthNames: [number, string[]][] = [
  [1, ['january', 'jan', 'januar', 'janvier', 'janv', 'jänner', 'enero', 'gennaio']],
  [2, ['february', 'feb', 'februar', 'février', 'fevrier', 'févr', 'febrero', 'febbraio']],
  [3, ['march', 'mar', 'märz', 'maerz', 'mars', 'marzo']],
  [4, ['april', 'apr', 'avril', 'abril', 'aprile']],
  [5, ['may', 'mai', 'mayo', 'maggio']],
  [6, ['june', 'jun', 'juni', 'juin', 'junio', 'giugno']],
  [7, ['july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio']],
  [8, ['august', 'aug', 'août', 'aout', 'agosto']],
  [9, ['september', 'sep', 'sept', 'septembre', 'septiembre', 'settembre']],
  [10, ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre']],
  [11, ['november', 'nov', 'novembre', 'noviembre']],
  [12, ['december', 'dec', 'dezember', 'dez', 'décembre', 'decembre', 'diciembre', 'dicembre']],
];
for (const [n, names] of monthNames) for (const name of names) MONTHS[name] = n;
const MONTH_ALT = Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|');

const DATE_RES: { re: RegExp; parse: (m: RegExpExecArray, preferMonthFirst: boolean) => { date: string | null; sure: boolean } }[] = [
  { re: /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g, parse: (m) => ({ date: isoDate(+m[1], +m[2], +m[3]), sure: true }) },
  { re: /\b(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4})\b/g, parse: (m) => ({ date: isoDate(+m[3], +m[2], +m[1]), sure: true }) },
  {
    re: /\b(\d{1,2})[/-](\d{1,2})[/-](\d{4})\b/g,
    parse: (m, monthFirst) => {
      const a = +m[1];
      const b = +m[2];
      if (a > 12) return { date: isoDate(+m[3], b, a), sure: true };
      if (b > 12) return { date: isoDate(+m[3], a, b), sure: true };
      return { date: monthFirst ? isoDate(+m[3], a, b) : isoDate(+m[3], b, a), sure: a === b };
    },
  },
  {
    re: new RegExp(`\\b(${MONTH_ALT})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'gi'),
    parse: (m) => ({ date: isoDate(+m[3], MONTHS[m[1].toLowerCase()], +m[2]), sure: true }),
  },
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\.?\\s+(${MONTH_ALT})\\.?,?\\s+(\\d{4})\\b`, 'gi'),
    parse: (m) => ({ date: isoDate(+m[3], MONTHS[m[2].toLowerCase()], +m[1]), sure: true }),
  },
];

/** Every date in a line with its position; `sure` is false for a day/month order the text leaves open. */
export function datesIn(line: string, preferMonthFirst: boolean): { date: string; sure: boolean; index: number }[] {
  const out: { date: string; sure: boolean; index: number }[] = [];
  for (const { re, parse } of DATE_RES) {
    for (const m of line.matchAll(re)) {
      const { date, sure } = parse(m as RegExpExecArray, preferMonthFirst);
      if (date && !out.some((o) => Math.abs(o.index - (m.index ?? 0)) < 3)) out.push({ date, sure, index: m.index ?? 0 });
    }
  }
  return out.sort((a, b) => a.index - b.index);
}

/** Removes the dates of a line (so their digits are not read as amounts). */
export function withoutDates(line: string): string {
  let out = line;
  for (const { re } of DATE_RES) out = out.replace(re, (s) => ' '.repeat(s.length));
  return out;
}
