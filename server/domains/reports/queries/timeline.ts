import { badRequest } from '../../../lib/errors.js';
import { TIMELINE_MAX_PERIODS, type ReportFilters, type TimelineGroupBy, type TimelineRow } from '../../../../shared/contracts/reports.js';
import { amountOf, countedEntriesWhere, Params, selectRows, type ReportScope } from '../report-sql.js';

/** How each grouping truncates a date, steps through periods and labels a period. */
const GROUPINGS: Record<TimelineGroupBy, { unit: string; label: string }> = {
  day: { unit: 'day', label: 'YYYY-MM-DD' },
  week: { unit: 'week', label: 'IYYY-"W"IW' }, // date_trunc('week') is the ISO Monday
  month: { unit: 'month', label: 'YYYY-MM' },
};

type Row = { period: string; income_cents: number; expense_cents: number; entry_count: number };

/** How many periods a zero-filled range holds (an upper bound for weeks). */
function periodCount(from: string, to: string, groupBy: TimelineGroupBy): number {
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  if (groupBy === 'day') return days;
  if (groupBy === 'week') return Math.ceil(days / 7) + 1;
  const months = (d: string) => Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7));
  return months(to) - months(from) + 1;
}

/**
 * Income, expense, net and count per period, ascending. With both `from` and `to`, every
 * period of the range appears (generate_series), zeros where nothing was booked.
 */
export async function timelineReport(s: ReportScope, f: ReportFilters, groupBy: TimelineGroupBy): Promise<TimelineRow[]> {
  const g = GROUPINGS[groupBy];
  const params = new Params();
  const amount = amountOf(f);
  const unit = `'${g.unit}'`;
  const label = `'${g.label}'`;
  const where = countedEntriesWhere(f, s.reach, params);
  // per day first (cheap to hash), then the few days folded into their periods
  const sums = `SELECT date_trunc(${unit}, d.entry_date::timestamp) AS period_start,
                       sum(d.income_cents) AS income_cents, sum(d.expense_cents) AS expense_cents, sum(d.entry_count) AS entry_count
                  FROM (SELECT e.entry_date,
                               COALESCE(sum(${amount}) FILTER (WHERE e.entry_type = 'INCOME'), 0) AS income_cents,
                               COALESCE(sum(${amount}) FILTER (WHERE e.entry_type = 'EXPENSE'), 0) AS expense_cents,
                               count(*) AS entry_count
                          FROM entries e
                         WHERE ${where}
                         GROUP BY e.entry_date) d
                 GROUP BY 1`;
  let sql: string;
  if (f.from !== undefined && f.to !== undefined) {
    if (periodCount(f.from, f.to, groupBy) > TIMELINE_MAX_PERIODS) {
      throw badRequest(`The range from ${f.from} to ${f.to} holds more than ${TIMELINE_MAX_PERIODS} periods of one ${groupBy}`);
    }
    const from = params.add(f.from);
    const to = params.add(f.to);
    sql = `WITH sums AS (${sums})
           SELECT to_char(p.period_start, ${label}) AS period,
                  COALESCE(s.income_cents, 0) AS income_cents,
                  COALESCE(s.expense_cents, 0) AS expense_cents,
                  COALESCE(s.entry_count, 0) AS entry_count
             FROM generate_series(date_trunc(${unit}, ${from}::timestamp), ${to}::timestamp, interval '1 ${g.unit}') AS p(period_start)
             LEFT JOIN sums s ON s.period_start = p.period_start
            ORDER BY p.period_start`;
  } else {
    sql = `SELECT to_char(period_start, ${label}) AS period, income_cents, expense_cents, entry_count
             FROM (${sums}) s ORDER BY period_start`;
  }
  const rows = await selectRows<Row>(sql, params, s.tx);
  return rows.map((r) => ({
    period: r.period,
    incomeCents: r.income_cents,
    expenseCents: r.expense_cents,
    netCents: r.income_cents - r.expense_cents,
    entryCount: r.entry_count,
  }));
}
