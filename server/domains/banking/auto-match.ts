import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import type { Actor } from '../../lib/scope.js';
import { SYSTEM } from '../entries/index.js';
import { assertActive, loadAccount, type AccountRow } from './account-rows.js';
import { lockEntries } from './match-rows.js';
import { reconcileEntries } from './reconcile-entries.js';

const LIVE = `('PENDING', 'UNDER_REVIEW', 'COMPLETED')`;

/**
 * The unambiguous pairs of the account (CONTRACT §14): a line with exactly one candidate entry of
 * its exact amount, that entry being the exact-amount candidate of no other unmatched line of the
 * account. One set-based query; the partial index entries_bank_candidate_idx serves each line.
 */
export const PAIRS_SQL = `
  WITH ul AS MATERIALIZED (
    SELECT id, statement_id, abs(amount_cents) AS amount, booking_date,
           CASE WHEN amount_cents > 0 THEN 'INCOME' ELSE 'EXPENSE' END AS entry_type
      FROM bank_lines
     WHERE workspace_id = $2 AND bank_account_id = $1 AND status = 'UNMATCHED' AND amount_cents <> 0
  ), cand AS (
    -- one index probe per line (LATERAL): fresh lines have no statistics yet, and a plan from
    -- stale estimates that scans the workspace's entries per line is quadratic
    SELECT ul.id AS line_id, ul.statement_id, e.id AS entry_id
      FROM ul CROSS JOIN LATERAL (
        SELECT e.id FROM entries e
         WHERE e.workspace_id = $2 AND e.base_currency = $3 AND e.entry_type = ul.entry_type
           AND e.amount_cents = ul.amount AND e.entry_status IN ${LIVE}
           AND e.entry_date BETWEEN ul.booking_date - $4::int AND ul.booking_date + $4::int
           AND NOT EXISTS (SELECT 1 FROM bank_match_entries me WHERE me.workspace_id = $2 AND me.entry_id = e.id)
      ) e
  ), per_line AS (
    SELECT line_id, min(statement_id::text) AS statement_id, count(*) AS n, min(entry_id) AS entry_id FROM cand GROUP BY line_id
  ), per_entry AS (
    SELECT entry_id, count(*) AS n FROM cand GROUP BY entry_id
  )
  SELECT pl.line_id, pl.entry_id FROM per_line pl JOIN per_entry pe USING (entry_id)
   WHERE pl.n = 1 AND pe.n = 1 AND ($5::uuid IS NULL OR pl.statement_id = $5::text)
   ORDER BY pl.line_id`;

/** The pairs still free once their entries and lines are locked. */
const FREE_PAIRS_SQL = `
  SELECT p.line_id, p.entry_id
    FROM unnest($1::bigint[], $2::bigint[]) AS p(line_id, entry_id)
    JOIN bank_lines l ON l.workspace_id = $3 AND l.id = p.line_id AND l.status = 'UNMATCHED'
    JOIN entries e ON e.workspace_id = $3 AND e.id = p.entry_id AND e.entry_status IN ${LIVE}
   WHERE NOT EXISTS (SELECT 1 FROM bank_match_entries me WHERE me.workspace_id = $3 AND me.entry_id = p.entry_id)
   ORDER BY p.line_id`;

/**
 * Auto-match inside the caller's transaction: finds the pairs, locks their entries (id order) and
 * lines, keeps the pairs still free after the locks, reconciles their entries and writes one AUTO match
 * per pair in one set-based statement (PostgreSQL checks the balance of all of them in one query at
 * commit: migration 0044).
 */
export async function autoMatchInTx(tx: Transaction, account: AccountRow, statementId: string | null = null): Promise<number> {
  const pairs = await db().query<{ line_id: string; entry_id: string }>(PAIRS_SQL, {
    bind: [account.id, account.workspace_id, account.currency.trim(), account.date_tolerance_days, statementId],
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  if (pairs.length === 0) return 0;
  const lineIds = pairs.map((p) => Number(p.line_id));
  const entryIds = pairs.map((p) => Number(p.entry_id));
  const lockedEntries = await lockEntries(
    tx,
    [...entryIds].sort((a, b) => a - b),
  );
  await db().query('SELECT id FROM bank_lines WHERE id = ANY($1::bigint[]) AND workspace_id = $2 ORDER BY id FOR UPDATE', {
    bind: [lineIds, account.workspace_id],
    transaction: tx,
  });
  const free = await db().query<{ line_id: string; entry_id: string }>(FREE_PAIRS_SQL, {
    bind: [lineIds, entryIds, account.workspace_id],
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  if (free.length === 0) return 0;
  const matches = free.map((p) => ({ lineId: Number(p.line_id), entryId: Number(p.entry_id), matchId: randomUUID() }));
  await db().query(
    `WITH p AS (
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::uuid[]) AS p(line_id, entry_id, match_id)
     ), m AS (
       INSERT INTO bank_matches (id, workspace_id, bank_account_id, method, created_by, created_at)
       SELECT match_id, $4, $5, 'AUTO', NULL, $6 FROM p
     ), me AS (
       INSERT INTO bank_match_entries (match_id, entry_id, workspace_id) SELECT match_id, entry_id, $4 FROM p
     )
     UPDATE bank_lines bl SET status = 'MATCHED', match_id = p.match_id FROM p WHERE bl.workspace_id = $4 AND bl.id = p.line_id`,
    {
      bind: [
        matches.map((m) => m.lineId),
        matches.map((m) => m.entryId),
        matches.map((m) => m.matchId),
        account.workspace_id,
        account.id,
        clock.now().toISOString(),
      ],
      transaction: tx,
    },
  );
  // after the matches' rows: the core reconciles the entries, the books settle them (CONTRACT §23); nothing changed
  // the rows since they were locked
  await reconcileEntries(tx, matches, SYSTEM, true, lockedEntries);
  return matches.length;
}

/** POST /bank-accounts/{id}/auto-match → {matched}, whatever the account's autoMatch flag says. */
export async function autoMatch(actor: Actor, accountId: string): Promise<{ matched: number }> {
  return transaction(async (tx) => {
    const account = await loadAccount(actor, accountId, tx, 'share');
    assertActive(account);
    return { matched: await autoMatchInTx(tx, account) };
  });
}
