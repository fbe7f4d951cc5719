import type { ReportFilters, SummaryReport } from '../../../../shared/contracts/reports.js';
import { countedEntriesWhere, Params, selectRows, type ReportScope } from '../report-sql.js';
import { unconvertedOf } from './unconverted.js';

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
  if (f.normalize) return normalizedSummaryReport(s, f);
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

type NormalizedRow = {
  base: string;
  currency: string | null;
  income_cents: number;
  expense_cents: number;
  entry_count: number;
  converted_count: number;
  unconverted_net_cents: number;
  total_income_cents: number | null;
  total_expense_cents: number | null;
  total_count: number | null;
  avg_cents: number | null;
};

/**
 * CONTRACT §17, normalize=true: totals, count and average over the entries that have an
 * amountBaseCents, in the workspace base currency (currency = base, never MIXED); the entries
 * without one reported as `unconverted` (signed net per currency). One pass grouping by currency,
 * as the plain summary does (the same index, in its order): sums over amount_base_cents skip the
 * entries without one, and FILTERs keep the unconverted apart. The breakdown keeps every counted
 * entry in its own currency.
 */
async function normalizedSummaryReport(s: ReportScope, f: ReportFilters): Promise<SummaryReport> {
  const params = new Params();
  const where = countedEntriesWhere({ ...f, normalize: false }, s.reach, params);
  const rows = await selectRows<NormalizedRow>(
    `SELECT w.base_currency::text AS base, c.currency, c.income_cents, c.expense_cents, c.entry_count,
            c.converted_count, c.unconverted_net_cents,
            sum(c.base_income_cents) OVER () AS total_income_cents,
            sum(c.base_expense_cents) OVER () AS total_expense_cents,
            sum(c.converted_count) OVER () AS total_count,
            round(sum(c.base_cents) OVER () / NULLIF(sum(c.converted_count) OVER (), 0)) AS avg_cents
       FROM workspaces w
       LEFT JOIN (SELECT e.base_currency::text AS currency,
                         COALESCE(sum(e.amount_cents) FILTER (WHERE e.entry_type = 'INCOME'), 0) AS income_cents,
                         COALESCE(sum(e.amount_cents) FILTER (WHERE e.entry_type = 'EXPENSE'), 0) AS expense_cents,
                         count(*) AS entry_count,
                         COALESCE(sum(e.amount_base_cents) FILTER (WHERE e.entry_type = 'INCOME'), 0) AS base_income_cents,
                         COALESCE(sum(e.amount_base_cents) FILTER (WHERE e.entry_type = 'EXPENSE'), 0) AS base_expense_cents,
                         sum(e.amount_base_cents) AS base_cents,
                         count(e.amount_base_cents) AS converted_count,
                         COALESCE(sum(CASE WHEN e.entry_type = 'INCOME' THEN e.amount_cents ELSE -e.amount_cents END)
                                    FILTER (WHERE e.amount_base_cents IS NULL), 0) AS unconverted_net_cents
                    FROM entries e
                   WHERE ${where}
                   GROUP BY e.base_currency) c ON true
      WHERE w.id = ${params.add(f.workspaceId)}
      ORDER BY c.currency`,
    params,
    s.tx,
  );
  const groups = rows.filter((r): r is NormalizedRow & { currency: string } => r.currency !== null);
  const unconverted = unconvertedOf(
    groups
      .filter((r) => r.entry_count > r.converted_count)
      .map((r) => ({ currency: r.currency, entry_count: r.entry_count - r.converted_count, net_cents: r.unconverted_net_cents })),
  );
  const totals = rows[0];
  const income = totals.total_income_cents ?? 0;
  const expense = totals.total_expense_cents ?? 0;
  return {
    totalIncomeCents: income,
    totalExpenseCents: expense,
    netCents: income - expense,
    entryCount: totals.total_count ?? 0,
    avgTransactionCents: totals.avg_cents ?? 0,
    currency: totals.base,
    currencies: groups.map((r) => r.currency),
    isCurrencyMixed: false,
    currencyBreakdown: groups.map((r) => ({
      currency: r.currency,
      incomeCents: r.income_cents,
      expenseCents: r.expense_cents,
      netCents: r.income_cents - r.expense_cents,
      entryCount: r.entry_count,
    })),
    unconverted,
  };
}
