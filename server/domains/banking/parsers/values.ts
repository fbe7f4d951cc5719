import { currencyExponent } from '../../../lib/money.js';
import { MAX_AMOUNT_CENTS } from '../../../../shared/contracts/entries.js';

export type DateFormat = 'YYYY-MM-DD' | 'DD.MM.YYYY' | 'DD/MM/YYYY' | 'MM/DD/YYYY';

const DATE_PATTERNS: Record<DateFormat, { re: RegExp; order: [number, number, number] }> = {
  'YYYY-MM-DD': { re: /^(\d{4})-(\d{1,2})-(\d{1,2})$/, order: [1, 2, 3] },
  'DD.MM.YYYY': { re: /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/, order: [3, 2, 1] },
  'DD/MM/YYYY': { re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, order: [3, 2, 1] },
  'MM/DD/YYYY': { re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, order: [3, 1, 2] },
};

/** A calendar date as YYYY-MM-DD, or null when it is not one. */
export function isoDate(year: number, month: number, day: number): string | null {
  if (year < 1900 || year > 2999 || month < 1 || month > 12 || day < 1) return null;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCMonth() !== month - 1) return null;
  return d.toISOString().slice(0, 10);
}

export function parseDate(text: string, format: DateFormat): string | null {
  const p = DATE_PATTERNS[format];
  const m = p.re.exec(text.trim());
  if (!m) return null;
  return isoDate(Number(m[p.order[0]]), Number(m[p.order[1]]), Number(m[p.order[2]]));
}

/** YYYY-MM-DD at the start of an ISO date or date-time (camt.053 Dt / DtTm). */
export function parseIsoDateStart(text: string | undefined): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec((text ?? '').trim());
  return m ? isoDate(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}

/** OFX dates: YYYYMMDD[HHMMSS[.mmm]][[+-]TZ[:name]] → the calendar date as written. */
export function parseOfxDate(text: string | undefined): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})/.exec((text ?? '').trim());
  return m ? isoDate(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}

/** A decimal amount with the given decimal separator (the other one groups thousands by three). */
const AMOUNT = {
  '.': /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d*))?$/,
  ',': /^(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d*))?$/,
} as const;

export type AmountResult = { cents: number } | { error: string };

/**
 * A decimal amount in major units → signed integer minor units of `currency` (ISO 4217 exponent),
 * exactly (no floating point). Thousands separators (space, apostrophe, and the other of . and ,
 * in groups of three) are accepted; more decimals than the currency has is an error.
 */
export function parseAmount(raw: string, decimalSeparator: '.' | ',', currency: string): AmountResult {
  let text = raw.trim().replace(/[\s\u00a0']/g, '');
  let negative = false;
  if (/^\(.*\)$/.test(text)) {
    negative = true;
    text = text.slice(1, -1);
  }
  if (text.startsWith('-') || text.startsWith('+')) {
    negative = text.startsWith('-') !== negative;
    text = text.slice(1);
  } else if (text.endsWith('-')) {
    negative = !negative;
    text = text.slice(0, -1);
  }
  const thousands = decimalSeparator === '.' ? ',' : '.';
  const m = AMOUNT[decimalSeparator].exec(text);
  if (!m || (m[1] === undefined && !m[2])) return { error: `"${raw.trim().slice(0, 40)}" is not an amount` };
  const whole = m[1].split(thousands).join('');
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  const exponent = currencyExponent(currency);
  if (fraction.length > exponent) return { error: `"${raw.trim().slice(0, 40)}" has more decimals than ${currency} has (${exponent})` };
  const digits = (whole + fraction.padEnd(exponent, '0')).replace(/^0+(?=\d)/, '');
  if (digits.length > 16 || Number(digits) > MAX_AMOUNT_CENTS) return { error: `"${raw.trim().slice(0, 40)}" is too large` };
  const cents = Number(digits);
  return { cents: negative && cents !== 0 ? -cents : cents };
}
