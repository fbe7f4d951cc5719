import { BANK_MATCH_ENTRIES_CHECK_0024, BANK_MATCH_ROW_TRIGGERS_0024 } from './0024-bank-match-balance.js';
import { BANK_MATCH_ENFORCE_0041 } from './0041-bank-match-enforce-plan.js';
import { BANK_LINES_MATCH_CHECK_0043 } from './0043-bank-match-check-once.js';
import { sql, type Migration } from './types.js';

/** bank_matches_enforce: the first unbalanced match of ids raises (0051 derives its workspace form from this text). */
export const BANK_MATCHES_ENFORCE_0044 = `    CREATE FUNCTION bank_matches_enforce(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      v record;
    BEGIN
      SELECT * INTO v FROM bank_match_state(ids) s WHERE NOT s.balanced LIMIT 1;
      IF NOT FOUND THEN
        RETURN; -- balanced, or gone (dissolved or deleted)
      END IF;
      IF v.lines_cents <> v.entries_cents THEN
        RAISE EXCEPTION 'bank match %: its lines sum to %, its entries (INCOME +, EXPENSE −) to %', v.checked_match, v.lines_cents, v.entries_cents
          USING ERRCODE = 'check_violation', CONSTRAINT = 'bank_match_balance';
      END IF;
      RAISE EXCEPTION 'bank match %: an entry is VOIDED, CANCELLED or REJECTED, not in %, or not reconciled', v.checked_match, v.account_currency
        USING ERRCODE = 'check_violation', CONSTRAINT = 'bank_match_balance';
    END $$;`;

/**
 * CONTRACT §14 "a match always balances", checked once per transaction for all the matches it changed, instead of
 * once per changed row (issue 28's auto-match bench: 0024's row triggers queued two deferred events and ran one check
 * per match, about 9 % of an auto-match of 10,000 lines; 0043 saved one check of the two).
 *
 * Statement triggers on bank_lines (UPDATE) and bank_match_entries note the matches each statement changed (from its
 * transition tables) as one row of bank_match_checks; a line inserted into or deleted from a match adds its own row.
 * That row's deferred constraint trigger `bank_match_balance` fires at commit (or when the statement ends, under SET
 * CONSTRAINTS … IMMEDIATE); the first to fire takes every row of the transaction and checks all their matches in one
 * set-based query, so an auto-match costs two rows and one check, not two events and a check per match. It sees no
 * other transaction's row: none outlives its transaction. The rule reads the same: checked when the transaction
 * commits, for every match whose lines or entries changed; entries_match_balance (a matched entry changing) still
 * checks its match row by row.
 *
 * bank_match_state is the one reading of the rule: bank_matches_enforce raises from it, for the commit check and for
 * bank_match_enforce (entries_match_balance's). Its plan stays index lookups as 0041's did (enable_seqscan off, the
 * matches looked up alone).
 */
export const m0044: Migration = {
  name: '0044-bank-match-statement-check',
  up: sql(`
    CREATE FUNCTION bank_match_state(ids uuid[])
      RETURNS TABLE (checked_match uuid, account_currency text, lines_cents numeric, entries_cents numeric, entries_ok boolean, balanced boolean)
      LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $$
    BEGIN
      RETURN QUERY
      SELECT bm.id, a.currency::text, ls.cents, x.cents, x.ok, ls.cents = x.cents AND x.ok
        FROM (SELECT m.id, m.bank_account_id FROM bank_matches m WHERE m.id = ANY(ids) OFFSET 0) bm
        JOIN bank_accounts a ON a.id = bm.bank_account_id
        CROSS JOIN LATERAL (SELECT COALESCE(sum(l.amount_cents), 0) AS cents FROM bank_lines l WHERE l.match_id = bm.id) ls
        CROSS JOIN LATERAL (
          SELECT COALESCE(sum(CASE WHEN e.entry_type = 'INCOME' THEN e.amount_cents ELSE -e.amount_cents END), 0) AS cents,
                 COALESCE(bool_and(e.entry_status NOT IN ('VOIDED', 'CANCELLED', 'REJECTED')
                                   AND e.base_currency = a.currency AND e.is_reconciled), true) AS ok
            FROM bank_match_entries me JOIN entries e ON e.id = me.entry_id
           WHERE me.match_id = bm.id
        ) x;
    END $$;

    -- the first unbalanced match of ids, if any, raises
${BANK_MATCHES_ENFORCE_0044}
    CREATE OR REPLACE FUNCTION bank_match_enforce(m uuid) RETURNS void LANGUAGE sql AS $$ SELECT bank_matches_enforce(ARRAY[m]) $$;

    -- the matches changed by this transaction's statements, one row per statement, until checked; no row outlives its transaction
    CREATE TABLE bank_match_checks (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      match_ids uuid[] NOT NULL
    );
    -- the first check to fire takes every row of the transaction (no other transaction's row is visible: none commits)
    CREATE FUNCTION bank_match_checks_enforce() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      ids uuid[];
    BEGIN
      WITH taken AS (DELETE FROM bank_match_checks RETURNING match_ids)
      SELECT array_agg(DISTINCT m) INTO ids FROM taken CROSS JOIN LATERAL unnest(taken.match_ids) AS m;
      IF ids IS NOT NULL THEN
        PERFORM bank_matches_enforce(ids);
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER bank_match_balance AFTER INSERT ON bank_match_checks
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bank_match_checks_enforce();

    CREATE FUNCTION bank_matches_changed(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF cardinality(ids) > 0 THEN
        INSERT INTO bank_match_checks (match_ids) VALUES (ids);
      END IF;
    END $$;

    -- the matches of the rows a statement wrote to bank_lines or bank_match_entries: those they left and those they
    -- joined (a line whose match and amount stay is counted too: a check more, never one less)
    CREATE FUNCTION bank_match_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM bank_matches_changed(ARRAY(SELECT n.match_id FROM new_rows n WHERE n.match_id IS NOT NULL));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM bank_matches_changed(ARRAY(SELECT o.match_id FROM old_rows o WHERE o.match_id IS NOT NULL));
      ELSE
        PERFORM bank_matches_changed(ARRAY(
          SELECT n.match_id FROM new_rows n WHERE n.match_id IS NOT NULL
          UNION ALL SELECT o.match_id FROM old_rows o WHERE o.match_id IS NOT NULL));
      END IF;
      RETURN NULL;
    END $$;

    -- a line inserted or deleted in a match (an import inserts its lines unmatched: no capture of its rows, no row)
    CREATE FUNCTION bank_lines_match_row() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM bank_matches_changed(ARRAY[CASE WHEN TG_OP = 'DELETE' THEN OLD.match_id ELSE NEW.match_id END]);
      RETURN NULL;
    END $$;

    DROP TRIGGER bank_match_entries_balance ON bank_match_entries;
    DROP TRIGGER bank_lines_match_balance_delete ON bank_lines;
    DROP TRIGGER bank_lines_match_balance_update ON bank_lines;
    DROP TRIGGER bank_lines_match_balance_insert ON bank_lines;
    DROP FUNCTION bank_match_entries_check();
    DROP FUNCTION bank_lines_match_check();

    CREATE TRIGGER bank_lines_match_insert AFTER INSERT ON bank_lines
      FOR EACH ROW WHEN (NEW.match_id IS NOT NULL) EXECUTE FUNCTION bank_lines_match_row();
    CREATE TRIGGER bank_lines_match_update AFTER UPDATE ON bank_lines
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bank_match_rows_changed();
    CREATE TRIGGER bank_lines_match_delete AFTER DELETE ON bank_lines
      FOR EACH ROW WHEN (OLD.match_id IS NOT NULL) EXECUTE FUNCTION bank_lines_match_row();
    CREATE TRIGGER bank_match_entries_insert AFTER INSERT ON bank_match_entries
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bank_match_rows_changed();
    CREATE TRIGGER bank_match_entries_update AFTER UPDATE ON bank_match_entries
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bank_match_rows_changed();
    CREATE TRIGGER bank_match_entries_delete AFTER DELETE ON bank_match_entries
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bank_match_rows_changed();
  `),
  down: sql(`
    DROP TRIGGER bank_match_entries_delete ON bank_match_entries;
    DROP TRIGGER bank_match_entries_update ON bank_match_entries;
    DROP TRIGGER bank_match_entries_insert ON bank_match_entries;
    DROP TRIGGER bank_lines_match_delete ON bank_lines;
    DROP TRIGGER bank_lines_match_update ON bank_lines;
    DROP TRIGGER bank_lines_match_insert ON bank_lines;
    DROP FUNCTION bank_match_rows_changed();
    DROP FUNCTION bank_lines_match_row();
    DROP FUNCTION bank_matches_changed(uuid[]);
    DROP TABLE bank_match_checks;
    DROP FUNCTION bank_match_checks_enforce();
${BANK_MATCH_ENFORCE_0041}
    DROP FUNCTION bank_matches_enforce(uuid[]);
    DROP FUNCTION bank_match_state(uuid[]);
${BANK_LINES_MATCH_CHECK_0043.replace('CREATE OR REPLACE FUNCTION', 'CREATE FUNCTION')}
${BANK_MATCH_ENTRIES_CHECK_0024}
${BANK_MATCH_ROW_TRIGGERS_0024}
  `),
};
