import { currencyExponentSql } from '../../lib/money.js';

/**
 * The SQL of CONTRACT §17's valuation, shared by valuate() (new and edited entries) and the
 * revaluation, so both choose rates and convert the same way.
 */

/**
 * The rate an entry in `currency` dated `entryDate` takes (SQL expressions; `ws` the
 * workspace id, `base` its base currency, `maxAge` FX_MAX_RATE_AGE_DAYS): "1" dated the
 * entry's own date for the base currency, else the rate with the latest rateDate on or
 * before entryDate and at most maxAge days older; no row when there is none. One backward
 * probe of fx_rates' unique index (workspace_id, currency, rate_date) INCLUDE (rate).
 * Columns: rate (numeric), rate_date.
 */
export const chosenRateSql = (ws: string, base: string, currency: string, entryDate: string, maxAge: string) => `
  (SELECT 1::numeric(25, 10) AS rate, ${entryDate} AS rate_date WHERE ${currency} = ${base}
   UNION ALL
   (SELECT f.rate, f.rate_date FROM fx_rates f
     WHERE f.workspace_id = ${ws} AND f.currency = ${currency} AND ${currency} <> ${base}
       AND f.rate_date <= ${entryDate} AND f.rate_date >= ${entryDate} - ${maxAge}::int
     ORDER BY f.rate_date DESC LIMIT 1))`;

/**
 * amountBaseCents of `amount` in `currency` at `rate` into `base` (SQL expressions):
 * fx_base_cents (migration 0017) with both currencies' ISO 4217 minor-unit exponents,
 * rounded half to even in exact numeric arithmetic. NULL when the rate is NULL.
 */
export const baseCentsSql = (amount: string, rate: string, currency: string, base: string) =>
  `fx_base_cents(${amount}, ${rate}, ${currencyExponentSql(currency)}, ${currencyExponentSql(base)})`;

/** A stored rate as its canonical decimal text ("0.0061", "1"): never through a JS number. */
export const rateTextSql = (rate: string) => `trim_scale(${rate})::text`;
