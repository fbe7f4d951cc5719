import type { ReportFilters, SummaryReport } from '../../../../shared/contracts/reports.js';
import { countedEntriesWhere, Params, selectRows, type ReportScope } from '../report-sql.js';

type Row = {
  currency: string;
  income_cents: number;
  expense_cents: number;
  entry_count: number;
  total_income_cents: number;
  total_expense_cents: number;
  total_count: number;
  avg_cents: number;
};

/**
 * Totals per currency (a parallel GROUP BY), and over all currencies by window sums over
 * those few rows, in one statement. Totals across currencies are operational signals, not
 * FX-normalised. No rows means no entries: zeros and currency null.
 */
export async function summaryReport(s: ReportScope, f: ReportFilters): Promise<SummaryReport> {
  const params = new Params();
  const rows = await selectRows<Row>(
    `SELECT c.currency, c.income_cents, c.expense_cents, c.entry_count,
            sum(c.income_cents) OVER () AS total_income_cents,
            sum(c.expense_cents) OVER () AS total_expense_cents,
            sum(c.entry_count) OVER () AS total_count,
            round(sum(c.amount_cents) OVER () / sum(c.entry_count) OVER ()) AS avg_cents
       FROM (SELECT e.base_currency::text AS currency,
                    COALESCE(sum(e.amount_cents) FILTER (WHERE e.entry_type = 'INCOME'), 0) AS income_cents,
                    COALESCE(sum(e.amount_cents) FILTER (WHERE e.entry_type = 'EXPENSE'), 0) AS expense_cents,
                    sum(e.amount_cents) AS amount_cents,
                    count(*) AS entry_count
               FROM entries e
              WHERE ${countedEntriesWhere(f, s.reach, params)}
              GROUP BY e.base_currency) c
      ORDER BY c.currency`,
    params,
    s.tx,
  );
  const breakdown = rows.map((r) => ({
    currency: r.currency,
    incomeCents: r.income_cents,
    expenseCents: r.expense_cents,
    netCents: r.income_cents - r.expense_cents,
    entryCount: r.entry_count,
  }));
  const currencies = breakdown.map((r) => r.currency);
  const total = rows[0] ?? { total_income_cents: 0, total_expense_cents: 0, total_count: 0, avg_cents: 0 };
  return {
    totalIncomeCents: total.total_income_cents,
    totalExpenseCents: total.total_expense_cents,
    netCents: total.total_income_cents - total.total_expense_cents,
    entryCount: total.total_count,
    avgTransactionCents: total.avg_cents,
    currency: currencies.length === 0 ? null : currencies.length === 1 ? currencies[0] : 'MIXED',
    currencies,
    isCurrencyMixed: currencies.length > 1,
    currencyBreakdown: breakdown,
  };
}
