import type { Sequelize } from 'sequelize-typescript';
import { plpgsqlOnCitus } from '../citus.js';
import { replaceOnce, type Migration } from './types.js';
import { BOOKS_EXPECTED_ENTRIES_0048 } from './0048-citus-routable-books.js';

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
 * Nothing else changes: the function is 0048's text with those two places replaced; on Citus the SQL function becomes
 * PL/pgSQL again (plpgsqlOnCitus, as 0048 and 0049 do).
 */
/** 0048's settlement day: books_open_day(ws, the match's last booking day). */
const DAY_0048 =
  'books_open_day(ws, (SELECT max(l.booking_date) FROM bank_lines l WHERE l.workspace_id = ws AND l.match_id = me.match_id)) AS day';
/** The same day in the statement: the first day on or after `b.last` that no closed period covers. */
const DAY = `(SELECT min(c.day) FROM (SELECT b.last AS day UNION ALL
                                      SELECT p.end_date + 1 FROM accounting_periods p
                                       WHERE p.workspace_id = ws AND p.status = 'CLOSED' AND p.end_date >= b.last) c
               WHERE NOT EXISTS (SELECT 1 FROM accounting_periods q
                                  WHERE q.workspace_id = ws AND q.status = 'CLOSED' AND q.start_date <= c.day AND q.end_date >= c.day)) AS day`;
/** The settlement's last booking day `b.last`, joined after its account (the last join of 0048's settle). */
const ACCOUNT_JOIN = 'JOIN bank_accounts ba ON ba.id = m.bank_account_id AND ba.workspace_id = ws';
const LAST_BOOKING = `${ACCOUNT_JOIN}
        CROSS JOIN LATERAL (SELECT max(l.booking_date) AS last FROM bank_lines l WHERE l.workspace_id = ws AND l.match_id = me.match_id) b`;

const OF_0048 = "0048's books_expected_entries (0050)";
const EXPECTED = replaceOnce(replaceOnce(BOOKS_EXPECTED_ENTRIES_0048, DAY_0048, DAY, OF_0048), ACCOUNT_JOIN, LAST_BOOKING, OF_0048);

export const m0050: Migration = {
  name: '0050-citus-settlement-day',
  up: async (db: Sequelize) => {
    await db.query(EXPECTED);
    await plpgsqlOnCitus(db);
  },
  // the function of this migration stays: it gives the dates 0048's gave
  down: async () => {},
};
