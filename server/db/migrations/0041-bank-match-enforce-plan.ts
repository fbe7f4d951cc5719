import { BANK_MATCH_ENFORCE_0024 } from './0024-bank-match-balance.js';
import { sql, type Migration } from './types.js';

/** 0041's check (0044 bases it on bank_match_state and restores this one on the way down). */
export const BANK_MATCH_ENFORCE_0041 = `
    CREATE OR REPLACE FUNCTION bank_match_enforce(m uuid) RETURNS void LANGUAGE plpgsql SET enable_seqscan = off AS $$
    DECLARE
      v record;
    BEGIN
      SELECT a.currency,
             (SELECT COALESCE(sum(l.amount_cents), 0) FROM bank_lines l WHERE l.match_id = m) AS lines_cents,
             x.entries_cents, x.dead, x.foreign, x.unreconciled
        INTO v
        FROM (SELECT bank_account_id FROM bank_matches WHERE id = m OFFSET 0) bm
        JOIN bank_accounts a ON a.id = bm.bank_account_id
        CROSS JOIN LATERAL (
          SELECT COALESCE(sum(CASE WHEN e.entry_type = 'INCOME' THEN e.amount_cents ELSE -e.amount_cents END), 0) AS entries_cents,
                 count(*) FILTER (WHERE e.entry_status IN ('VOIDED', 'CANCELLED', 'REJECTED')) AS dead,
                 count(*) FILTER (WHERE e.base_currency <> a.currency) AS foreign,
                 count(*) FILTER (WHERE NOT e.is_reconciled) AS unreconciled
            FROM bank_match_entries me JOIN entries e ON e.id = me.entry_id
           WHERE me.match_id = m
        ) x;
      IF NOT FOUND THEN
        RETURN; -- the match is gone (dissolved or deleted)
      END IF;
      IF v.lines_cents <> v.entries_cents THEN
        RAISE EXCEPTION 'bank match %: its lines sum to %, its entries (INCOME +, EXPENSE −) to %', m, v.lines_cents, v.entries_cents
          USING ERRCODE = 'check_violation', CONSTRAINT = 'bank_match_balance';
      END IF;
      IF v.dead > 0 OR v.foreign > 0 OR v.unreconciled > 0 THEN
        RAISE EXCEPTION 'bank match %: an entry is VOIDED, CANCELLED or REJECTED, not in %, or not reconciled', m, v.currency
          USING ERRCODE = 'check_violation', CONSTRAINT = 'bank_match_balance';
      END IF;
    END $$;
`;

/**
 * The match-balance check of migration 0024, same rule, with plans that stay index lookups (issue 28's bench).
 *
 * plpgsql caches a generic plan after five calls, made from the statistics of the tables — and an auto-match adds
 * thousands of matches inside one transaction to tables whose statistics say "a few rows". 0024's join then read
 * bank_matches through bank_matches_account_idx with `id = $1` as a filter (or bank_lines, bank_matches and
 * bank_match_entries by sequential scans): every check scanned every match written so far, so one auto-match of n
 * lines cost O(n²) at commit (2,000 matches: 0.85 s of COMMIT instead of 0.14 s). Here the match is looked up alone
 * (the OFFSET 0 keeps that subquery apart, so only an index on id serves it), the entries are summed in a LATERAL
 * subquery, and the function plans without sequential scans: each of its lookups has an index made for it.
 */
export const m0041: Migration = {
  name: '0041-bank-match-enforce-plan',
  up: sql(BANK_MATCH_ENFORCE_0041),
  down: sql(BANK_MATCH_ENFORCE_0024.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION')),
};
