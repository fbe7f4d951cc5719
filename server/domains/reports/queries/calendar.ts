import type { CalendarDay, ReportFilters } from '../../../../shared/contracts/reports.js';
import { amountOf, countedEntriesWhere, Params, selectRows, type ReportScope } from '../report-sql.js';

type Row = { date: string; total_cents: number; entry_count: number };

/** Spec §4.5 rule 3: the signed daily net (income positive, expense negative) of the days of `year` that have entries. */
export async function calendarReport(s: ReportScope, f: Omit<ReportFilters, 'from' | 'to'>, year: number): Promise<CalendarDay[]> {
  const params = new Params();
  const amount = amountOf(f);
  const y = String(year).padStart(4, '0');
  const where = countedEntriesWhere({ ...f, from: `${y}-01-01`, to: `${y}-12-31` }, s.reach, params);
  const rows = await selectRows<Row>(
    `SELECT e.entry_date AS date,
            sum(CASE WHEN e.entry_type = 'INCOME' THEN ${amount} ELSE -${amount} END) AS total_cents,
            count(*) AS entry_count
       FROM entries e
      WHERE ${where}
      GROUP BY e.entry_date
      ORDER BY e.entry_date`,
    params,
    s.tx,
  );
  return rows.map((r) => ({ date: r.date, totalCents: r.total_cents, entryCount: r.entry_count }));
}
