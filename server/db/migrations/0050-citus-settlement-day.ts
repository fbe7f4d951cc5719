import type { Sequelize } from 'sequelize-typescript';
import { plpgsqlOnCitus } from '../citus.js';
import type { Migration } from './types.js';

/**
 * CONTRACT §24 (issue 50): a settlement (an entry matched to bank lines, CONTRACT §23 "Settlement") posts on Citus.
 * books_expected_entries dated a settlement with books_open_day(ws, day), a PL/pgSQL function that reads
 * accounting_periods. On Citus the function's statement is routed whole to the workspace's shard group, so the call
 * ran on the worker, inside a query on a shard, where its own read of a distributed table is refused ("cannot execute
 * a distributed query from a query on a shard"): every bank match (manual, automatic, at import) failed there.
 *
 * The first open day on or after a settlement's last booking day is now computed in the statement itself, over the
 * same workspace's closed periods: the smallest of that day and the days after a closed period's end (on or after it)
 * that no closed period covers, which is where books_open_day's loop stops (each of its steps skips only covered
 * days). Same dates on plain PostgreSQL, same reads (the closed periods of the workspace, by its index). The function
 * books_open_day stays (the reversal of a settlement, in books_post_entries, runs on the coordinator).
 * Nothing else changes; on Citus the SQL function becomes PL/pgSQL again (plpgsqlOnCitus, as 0048 and 0049 do).
 */
const EXPECTED = `
  CREATE OR REPLACE FUNCTION books_expected_entries(ws int, ids bigint[])
    RETURNS TABLE (entry_id bigint, kind text, txn_date date, bank_match_id uuid, bank_account_id uuid,
                   line_no int, category_id uuid, debit_cents bigint, credit_cents bigint)
    LANGUAGE sql STABLE AS $$
    WITH roles AS (
      SELECT (array_agg(r.category_id) FILTER (WHERE r.role = 'BANK'))[1] AS bank,
             (array_agg(r.category_id) FILTER (WHERE r.role = 'RECEIVABLE'))[1] AS receivable,
             (array_agg(r.category_id) FILTER (WHERE r.role = 'PAYABLE'))[1] AS payable,
             (array_agg(r.category_id) FILTER (WHERE r.role = 'REVENUE'))[1] AS revenue,
             (array_agg(r.category_id) FILTER (WHERE r.role = 'EXPENSE'))[1] AS expense
        FROM ledger_roles r WHERE r.workspace_id = ws
    ),
    e AS (
      SELECT e.id, e.entry_type, e.entry_date, e.amount_base_cents AS a, e.fx_rate::numeric AS rate,
             books_currency_exponent(w.base_currency) - books_currency_exponent(e.base_currency) AS shift,
             CASE e.entry_type WHEN 'INCOME' THEN 'REVENUE' ELSE 'EXPENSE' END AS pl_type,
             CASE WHEN c.account_type = CASE e.entry_type WHEN 'INCOME' THEN 'REVENUE' ELSE 'EXPENSE' END THEN c.id
                  WHEN e.entry_type = 'INCOME' THEN r.revenue ELSE r.expense END AS account,
             CASE e.entry_type WHEN 'INCOME' THEN r.receivable ELSE r.payable END AS side,
             r.bank
        FROM entries e
        JOIN workspaces w ON w.id = ws
        CROSS JOIN roles r
        LEFT JOIN accounting_categories c ON c.id = e.category_id AND c.workspace_id = e.workspace_id
       WHERE e.workspace_id = ws AND e.id = ANY(ids)
         AND e.entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED') AND e.amount_base_cents > 0
    ),
    item AS (
      SELECT i.entry_id, i.position, i.amount_cents,
             CASE WHEN ic.account_type = e.pl_type THEN ic.id END AS own_account
        FROM e JOIN entry_items i ON i.entry_id = e.id AND i.workspace_id = ws
        LEFT JOIN accounting_categories ic ON ic.id = i.category_id AND ic.workspace_id = ws
    ),
    -- with items that carry a category of the entry's type: one line per account, each item converted at the
    -- entry's rate and rounded half away from zero (numeric round), the cents left on the largest line (the first)
    per_account AS (
      SELECT it.entry_id, COALESCE(it.own_account, e.account) AS account, min(it.position) AS first,
             sum(round(it.amount_cents * e.rate * 10::numeric ^ e.shift))::bigint AS cents
        FROM item it JOIN e ON e.id = it.entry_id
       WHERE it.entry_id IN (SELECT x.entry_id FROM item x WHERE x.own_account IS NOT NULL)
       GROUP BY 1, 2
    ),
    split AS (
      SELECT p.entry_id, p.account, p.first,
             p.cents + CASE WHEN row_number() OVER (PARTITION BY p.entry_id ORDER BY p.cents DESC, p.first) = 1
                            THEN e.a - sum(p.cents) OVER (PARTITION BY p.entry_id) ELSE 0 END AS cents
        FROM per_account p JOIN e ON e.id = p.entry_id
      UNION ALL
      SELECT e.id, e.account, 0, e.a FROM e WHERE NOT EXISTS (SELECT 1 FROM per_account p WHERE p.entry_id = e.id)
    ),
    pl AS (
      SELECT s.entry_id, s.account, s.cents::bigint AS cents, row_number() OVER (PARTITION BY s.entry_id ORDER BY s.first, s.account)::int AS n,
             count(*) OVER (PARTITION BY s.entry_id)::int AS of_n
        FROM split s WHERE s.cents > 0
    ),
    settle AS (
      SELECT e.id, e.entry_type, e.a, e.side, me.match_id, m.bank_account_id, COALESCE(ba.ledger_category_id, e.bank) AS bank_account,
             (SELECT min(c.day) FROM (SELECT b.last AS day UNION ALL
                                      SELECT p.end_date + 1 FROM accounting_periods p
                                       WHERE p.workspace_id = ws AND p.status = 'CLOSED' AND p.end_date >= b.last) c
               WHERE NOT EXISTS (SELECT 1 FROM accounting_periods q
                                  WHERE q.workspace_id = ws AND q.status = 'CLOSED' AND q.start_date <= c.day AND q.end_date >= c.day)) AS day
        FROM e
        JOIN bank_match_entries me ON me.entry_id = e.id AND me.workspace_id = ws
        JOIN bank_matches m ON m.id = me.match_id AND m.workspace_id = ws
        JOIN bank_accounts ba ON ba.id = m.bank_account_id AND ba.workspace_id = ws
        CROSS JOIN LATERAL (SELECT max(l.booking_date) AS last FROM bank_lines l WHERE l.workspace_id = ws AND l.match_id = me.match_id) b
    )
    SELECT e.id, 'ENTRY', e.entry_date, NULL::uuid, NULL::uuid,
           CASE WHEN e.entry_type = 'INCOME' THEN 1 ELSE 1 + (SELECT max(p.of_n) FROM pl p WHERE p.entry_id = e.id) END,
           e.side, CASE WHEN e.entry_type = 'INCOME' THEN e.a ELSE 0 END, CASE WHEN e.entry_type = 'INCOME' THEN 0 ELSE e.a END
      FROM e
    UNION ALL
    SELECT e.id, 'ENTRY', e.entry_date, NULL, NULL, p.n + CASE WHEN e.entry_type = 'INCOME' THEN 1 ELSE 0 END,
           p.account, CASE WHEN e.entry_type = 'INCOME' THEN 0 ELSE p.cents END, CASE WHEN e.entry_type = 'INCOME' THEN p.cents ELSE 0 END
      FROM pl p JOIN e ON e.id = p.entry_id
    UNION ALL
    SELECT s.id, 'SETTLEMENT', s.day, s.match_id, s.bank_account_id, 1,
           CASE WHEN s.entry_type = 'INCOME' THEN s.bank_account ELSE s.side END, s.a, 0
      FROM settle s WHERE s.day IS NOT NULL
    UNION ALL
    SELECT s.id, 'SETTLEMENT', s.day, s.match_id, s.bank_account_id, 2,
           CASE WHEN s.entry_type = 'INCOME' THEN s.side ELSE s.bank_account END, 0, s.a
      FROM settle s WHERE s.day IS NOT NULL
  $$;
`;

export const m0050: Migration = {
  name: '0050-citus-settlement-day',
  up: async (db: Sequelize) => {
    await db.query(EXPECTED);
    await plpgsqlOnCitus(db);
  },
  // the function of this migration stays: it gives the dates 0048's gave
  down: async () => {},
};
