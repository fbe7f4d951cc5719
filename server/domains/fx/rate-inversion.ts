import { canonicalRate, RATE_MAX_DECIMALS, RATE_MAX_SIGNIFICANT } from '../../../shared/contracts/fx.js';

const TEN = 10n;
const pow10 = (n: number): bigint => TEN ** BigInt(n);

/** n / d rounded half to even (n >= 0, d > 0), in exact integer arithmetic. */
function divHalfEven(n: bigint, d: bigint): bigint {
  const q = n / d;
  const twice = 2n * (n % d);
  return twice > d || (twice === d && q % 2n === 1n) ? q + 1n : q;
}

/** A valid rate as an integer and a scale: "0.0061" → {units: 61n, scale: 4}. */
function unitsOf(rate: string): { units: bigint; scale: number } {
  const [whole, fraction = ''] = canonicalRate(rate).split('.');
  return { units: BigInt(whole + fraction), scale: fraction.length };
}

/** The position of the leading digit of n / d (n, d > 0): m with 10^m <= n / d < 10^(m+1). */
function magnitude(n: bigint, d: bigint): number {
  const k = n.toString().length - d.toString().length; // n / d lies in [10^(k-1), 10^(k+1))
  const atLeast10k = k >= 0 ? n >= d * pow10(k) : n * pow10(-k) >= d;
  return atLeast10k ? k : k - 1;
}

/**
 * 1 / rate as a rate the contract accepts, for the ECB file (rates per EUR, CONTRACT §17).
 *
 * Rounding, documented: the exact quotient 1 / rate is rounded ONCE, half to even, at the
 * finest decimal place that keeps both limits — at most 10 decimals and at most 15
 * significant digits (so a quotient ≥ 100,000 keeps 15 - integer digits decimals). A single
 * rounding, never 10 decimals first and significant digits after, so no double-rounding error.
 * Example: 1 / 1.0956 = 0.91274187659730... → "0.9127418766"; 1 / 162.5 = 0.00615384615384... →
 * "0.0061538462". Returns undefined when the result would be 0 at 10 decimals (a rate above
 * 2 × 10^10, none in an ECB file).
 */
export function invertRate(rate: string): string | undefined {
  const { units, scale } = unitsOf(rate); // rate = units / 10^scale, so 1 / rate = 10^scale / units
  const numerator = pow10(scale);
  const leading = magnitude(numerator, units);
  const decimals = Math.min(RATE_MAX_DECIMALS, RATE_MAX_SIGNIFICANT - 1 - leading);
  const scaled = divHalfEven(numerator * pow10(decimals), units); // 1 / rate × 10^decimals, rounded
  if (scaled === 0n) return undefined;
  const digits = scaled.toString().padStart(decimals + 1, '0');
  const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return canonicalRate(text);
}
