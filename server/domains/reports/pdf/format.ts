import { currencyExponent, formatMinorUnits } from '../../../lib/money.js';

/** "1234567.89" → "1,234,567.89" (sign and decimals kept). */
export function groupThousands(decimal: string): string {
  const negative = decimal.startsWith('-');
  const [whole, fraction] = (negative ? decimal.slice(1) : decimal).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/**
 * An amount for print: major units of its currency, or plain minor units when the figure
 * mixes currencies (`currency` null) and so has no single unit.
 */
export const money = (cents: number, currency: string | null): string =>
  groupThousands(currency ? formatMinorUnits(cents, currency) : String(cents));

/** Short axis label in major units (minor units when mixed): 1.2k, 3.5M … */
export function compactAmount(cents: number, currency: string | null): string {
  const value = currency ? cents / 10 ** currencyExponent(currency) : cents;
  const abs = Math.abs(value);
  const scaled = (n: number, suffix: string) => `${Number((value / n).toFixed(abs / n < 10 ? 1 : 0))}${suffix}`;
  if (abs >= 1e12) return scaled(1e12, 'T');
  if (abs >= 1e9) return scaled(1e9, 'B');
  if (abs >= 1e6) return scaled(1e6, 'M');
  if (abs >= 1e3) return scaled(1e3, 'k');
  return String(Number(value.toFixed(2)));
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "2027-01" → "Jan" */
export const monthName = (period: string): string => MONTHS[Number(period.slice(5, 7)) - 1];
