import { DISTRIBUTION_VALUES_LIMIT, type DistributionReport, type ReportFilters } from '../../../../shared/contracts/reports.js';
import { amountOf, countedEntriesWhere, Params, selectRows, type ReportScope } from '../report-sql.js';
import { unconvertedEntries } from './unconverted.js';

type TypeStats = {
  count: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  median: number | null;
  q1: number | null;
  q3: number | null;
};
type Row = { income: TypeStats; expense: TypeStats; income_values: number[] | null; expense_values: number[] | null };

const TYPES = { INCOME: 'income', EXPENSE: 'expense' } as const;

/**
 * percentile_cont interpolates in double precision; amounts are at most 1e15 and quartile
 * positions fall on quarters, so the value is exact there, and floor(x + 0.5) rounds it half
 * away from zero (amounts are positive) without the 15-digit float → numeric cast.
 */
const quartile = (p: number, type: string, amount: string) =>
  `floor(percentile_cont(${p}) WITHIN GROUP (ORDER BY ${amount}) FILTER (WHERE e.entry_type = '${type}') + 0.5)::bigint`;

/** One scan for both types: aggregates with FILTER, the three quartiles of a type sharing one sort. */
const statsOf = (type: string, amount: string) => `json_build_object(
    'count', count(*) FILTER (WHERE e.entry_type = '${type}'),
    'min', min(${amount}) FILTER (WHERE e.entry_type = '${type}'),
    'max', max(${amount}) FILTER (WHERE e.entry_type = '${type}'),
    'mean', round(avg(${amount}) FILTER (WHERE e.entry_type = '${type}')),
    'median', ${quartile(0.5, type, amount)},
    'q1', ${quartile(0.25, type, amount)},
    'q3', ${quartile(0.75, type, amount)})`;

/**
 * Per entry type: count, min, max, mean (round half away from zero), quartiles as
 * percentile_cont, and the amounts ascending — the smallest DISTRIBUTION_VALUES_LIMIT,
 * with `valuesTruncated: true` when there are more. A type without entries has count 0,
 * null statistics and no values.
 */
export async function distributionReport(s: ReportScope, f: ReportFilters): Promise<DistributionReport> {
  const params = new Params();
  const where = countedEntriesWhere(f, s.reach, params);
  const amount = amountOf(f);
  const limit = params.add(DISTRIBUTION_VALUES_LIMIT);
  const valuesOf = (type: string) => `(SELECT json_agg(v.amount ORDER BY v.amount)
       FROM (SELECT ${amount} AS amount FROM entries e WHERE ${where} AND e.entry_type = '${type}' ORDER BY ${amount} LIMIT ${limit}) v)`;
  const [row] = await selectRows<Row>(
    `SELECT st.income, st.expense, ${valuesOf('INCOME')} AS income_values, ${valuesOf('EXPENSE')} AS expense_values
       FROM (SELECT ${statsOf('INCOME', amount)} AS income, ${statsOf('EXPENSE', amount)} AS expense FROM entries e WHERE ${where}) st`,
    params,
    s.tx,
  );
  const report = {} as DistributionReport;
  for (const [type, key] of Object.entries(TYPES) as [keyof typeof TYPES, (typeof TYPES)[keyof typeof TYPES]][]) {
    const stats = row[key];
    report[type] = {
      ...stats,
      values: row[`${key}_values`] ?? [],
      ...(stats.count > DISTRIBUTION_VALUES_LIMIT ? { valuesTruncated: true as const } : {}),
    };
  }
  if (f.normalize) report.unconverted = await unconvertedEntries(s, f);
  return report;
}
