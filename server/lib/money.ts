import { ISO_4217_EXPONENTS } from '../../shared/currencies.js';

/** The ISO 4217 minor-unit exponent of a currency, from the list the contracts accept (CONTRACT §5). */
export const currencyExponent = (currency: string): number => ISO_4217_EXPONENTS.get(currency) ?? 2;

/** The codes whose exponent is not 2: the SQL CASE lists only these. */
const EXPONENTS = Object.fromEntries([...ISO_4217_EXPONENTS].filter(([, exponent]) => exponent !== 2));

/** SQL expression: the ISO 4217 exponent of the currency in `column` (same table as currencyExponent). */
export const currencyExponentSql = (column: string): string =>
  `CASE rtrim(${column}) ${Object.entries(EXPONENTS)
    .map(([code, exponent]) => `WHEN '${code}' THEN ${exponent}`)
    .join(' ')} ELSE 2 END`;

/**
 * SQL VALUES rows `(code, unit)`: one minor unit in major units, as an exact numeric, of each currency whose
 * exponent is not 2 (`('JPY', 1)`, `('KWD', 0.001)`). `amount_cents * unit` then has the currency's exponent
 * as its scale, so its text is the decimal in major units (12345 × 0.01 → 123.45, 5 × 0.01 → 0.05), as formatMinorUnits writes it.
 */
export const minorUnitValuesSql = (): string =>
  Object.entries(EXPONENTS)
    .map(([code, exponent]) => `('${code}', ${exponent === 0 ? '1' : (10 ** -exponent).toFixed(exponent)})`)
    .join(', ');

/** Minor units → decimal string in major units, exact (no floating point, any size as a bigint): 12345 USD → "123.45". */
export function formatMinorUnits(amount: number | bigint, currency: string): string {
  const exponent = currencyExponent(currency);
  const negative = amount < 0;
  const digits = (negative ? -amount : amount).toString();
  if (exponent === 0) return (negative ? '-' : '') + digits;
  const padded = digits.padStart(exponent + 1, '0');
  const major = padded.slice(0, padded.length - exponent);
  const minor = padded.slice(padded.length - exponent);
  return `${negative ? '-' : ''}${major}.${minor}`;
}
