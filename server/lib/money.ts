/** ISO 4217 minor-unit exponents that differ from 2. */
const EXPONENTS: Record<string, number> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

export const currencyExponent = (currency: string): number => EXPONENTS[currency] ?? 2;

/** SQL expression: the ISO 4217 exponent of the currency in `column` (same table as currencyExponent). */
export const currencyExponentSql = (column: string): string =>
  `CASE rtrim(${column}) ${Object.entries(EXPONENTS)
    .map(([code, exponent]) => `WHEN '${code}' THEN ${exponent}`)
    .join(' ')} ELSE 2 END`;

/** Minor units → decimal string in major units, exact (no floating point): 12345 USD → "123.45". */
export function formatMinorUnits(amount: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const negative = amount < 0;
  const digits = Math.abs(amount).toString();
  if (exponent === 0) return (negative ? '-' : '') + digits;
  const padded = digits.padStart(exponent + 1, '0');
  const major = padded.slice(0, padded.length - exponent);
  const minor = padded.slice(padded.length - exponent);
  return `${negative ? '-' : ''}${major}.${minor}`;
}
