import { currencyExponent } from '../../../lib/money.js';

/**
 * A decimal amount as minor units of `currency` (its ISO 4217 exponent), without floating point:
 * "1234.5" EUR → 123450. `exact` is false when the text has non-zero digits beyond the exponent
 * (then the amount is rounded half away from zero). Null when the text is not a decimal number.
 */
export function toMinorUnits(text: string, currency: string): { value: number; exact: boolean } | null {
  const m = /^([+-]?)(\d{1,16})(?:\.(\d{1,10}))?$/.exec(text.trim());
  if (!m) return null;
  const exponent = currencyExponent(currency);
  const decimals = m[3] ?? '';
  const kept = decimals.slice(0, exponent).padEnd(exponent, '0');
  const rest = decimals.slice(exponent);
  let value = Number(m[2] + kept);
  const exact = /^0*$/.test(rest);
  if (!exact && rest[0] >= '5') value += 1;
  if (!Number.isSafeInteger(value)) return null;
  return { value: m[1] === '-' ? -value : value, exact };
}

/** IBAN with the ISO 13616 mod-97 check; spaces removed, upper case; null when it is not one. */
export function ibanOf(text: string | null | undefined): string | null {
  const iban = (text ?? '').replace(/[\s-]/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(iban)) return null;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const v = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1 ? iban : null;
}

/** A real calendar date YYYY-MM-DD, else null. */
export function isoDate(y: number, m: number, d: number): string | null {
  if (y < 1900 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCMonth() !== m - 1) return null;
  return date.toISOString().slice(0, 10);
}
