import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { runtime } from '../../runtime.js';
import type { EntryValuation } from '../../../shared/contracts/fx.js';
import { baseCentsSql, chosenRateSql, rateTextSql } from './valuation-sql.js';

export type ValuationRequest = { currency: string; entryDate: string; amountCents: number };
export type { EntryValuation };

export const NO_RATE: EntryValuation = { fxRate: null, fxRateDate: null, amountBaseCents: null };

type Row = { ord: number; fx_rate: string | null; fx_rate_date: string | null; amount_base_cents: number | null };

/**
 * CONTRACT §17: the valuation of entries of workspace `workspaceId`, in input order — for
 * each, the rate of its currency with the latest rateDate on or before its entryDate (at
 * most FX_MAX_RATE_AGE_DAYS older; "1" for the base currency) and amountCents converted
 * with it, rounded half to even; all three null without a rate.
 *
 * Set-based: ONE statement for a whole batch (an ingest of 1,000 entries), one index probe
 * per distinct (currency, date). Runs in the caller's transaction `tx`, so a rate written
 * earlier in it counts. A converted amount beyond bigint is a 400 (out of range).
 */
export async function valuate(
  tx: Transaction | undefined,
  workspaceId: number,
  items: readonly ValuationRequest[],
): Promise<EntryValuation[]> {
  if (items.length === 0) return [];
  const rows = await db().query<Row>(
    `WITH items AS (
       SELECT i.ord, i.currency, i.entry_date, i.amount_cents
         FROM unnest($2::text[], $3::date[], $4::bigint[]) WITH ORDINALITY AS i(currency, entry_date, amount_cents, ord)),
     ws AS (SELECT base_currency::text AS base FROM workspaces WHERE id = $1),
     pairs AS (
       SELECT p.currency, p.entry_date, r.rate, r.rate_date
         FROM (SELECT DISTINCT currency, entry_date FROM items) p CROSS JOIN ws
         CROSS JOIN LATERAL ${chosenRateSql('$1', 'ws.base', 'p.currency', 'p.entry_date', '$5')} r)
     SELECT i.ord, ${rateTextSql('p.rate')} AS fx_rate, p.rate_date AS fx_rate_date,
            ${baseCentsSql('i.amount_cents', 'p.rate', 'i.currency', 'ws.base')} AS amount_base_cents
       FROM items i CROSS JOIN ws
       LEFT JOIN pairs p ON p.currency = i.currency AND p.entry_date = i.entry_date
      ORDER BY i.ord`,
    {
      bind: [
        workspaceId,
        items.map((i) => i.currency),
        items.map((i) => i.entryDate),
        items.map((i) => i.amountCents),
        runtime().config.FX_MAX_RATE_AGE_DAYS,
      ],
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  if (rows.length !== items.length) throw new Error(`valuate: workspace ${workspaceId} not found`);
  return rows.map((r) =>
    r.fx_rate === null ? NO_RATE : { fxRate: r.fx_rate, fxRateDate: r.fx_rate_date, amountBaseCents: r.amount_base_cents },
  );
}

/**
 * The same valuation for ONE entry as SQL (the ledger core folds it into the first statement of a create):
 * a subquery of at most one row (fx_rate text, fx_rate_date date, amount_base_cents bigint); no row without a
 * rate. `ws`, `currency`, `entryDate` and `amount` are SQL expressions of the caller's statement.
 */
export function valuationSql(ws: string, currency: string, entryDate: string, amount: string): string {
  const maxAge = String(Math.trunc(runtime().config.FX_MAX_RATE_AGE_DAYS));
  return `(SELECT ${rateTextSql('r.rate')} AS fx_rate, r.rate_date AS fx_rate_date,
                  ${baseCentsSql(amount, 'r.rate', currency, 'w.base')} AS amount_base_cents
             FROM (SELECT base_currency::text AS base FROM workspaces WHERE id = ${ws}) w
            CROSS JOIN LATERAL ${chosenRateSql(ws, 'w.base', currency, entryDate, maxAge)} r)`;
}
