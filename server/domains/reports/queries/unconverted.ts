import type { ReportFilters, Unconverted } from '../../../../shared/contracts/reports.js';
import { countedEntriesWhere, Params, selectRows, type ReportScope } from '../report-sql.js';

type Row = { currency: string; entry_count: number; net_cents: number };

/** Folds per-currency rows of entries without a rate into the contract's `unconverted`. */
export function unconvertedOf(rows: readonly Row[]): Unconverted {
  const amountCentsByCurrency: Record<string, number> = {};
  let entryCount = 0;
  for (const r of rows) {
    amountCentsByCurrency[r.currency] = r.net_cents;
    entryCount += r.entry_count;
  }
  return { entryCount, amountCentsByCurrency };
}

/**
 * CONTRACT §17: the counted entries a normalised report leaves out (no amountBaseCents),
 * per currency: how many, and their signed net (income positive) in that currency's minor
 * units. One GROUP BY over entries_report_idx, whose rows carry amount_base_cents.
 */
export async function unconvertedEntries(s: ReportScope, f: ReportFilters): Promise<Unconverted> {
  const params = new Params();
  const rows = await selectRows<Row>(
    `SELECT e.base_currency::text AS currency, count(*) AS entry_count,
            sum(CASE WHEN e.entry_type = 'INCOME' THEN e.amount_cents ELSE -e.amount_cents END) AS net_cents
       FROM entries e
      WHERE ${countedEntriesWhere({ ...f, normalize: false }, s.reach, params)} AND e.amount_base_cents IS NULL
      GROUP BY e.base_currency
      ORDER BY e.base_currency`,
    params,
    s.tx,
  );
  return unconvertedOf(rows);
}
