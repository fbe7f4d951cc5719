import { sql, type Migration } from './types.js';

/** 0024's check (0041 redefines it with index-only plans and restores this one on the way down). */
export const BANK_MATCH_ENFORCE_0024 = `
    CREATE FUNCTION bank_match_enforce(m uuid) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      v record;
    BEGIN
      SELECT a.currency,
             (SELECT COALESCE(sum(l.amount_cents), 0) FROM bank_lines l WHERE l.match_id = m) AS lines_cents,
             COALESCE(sum(CASE WHEN e.entry_type = 'INCOME' THEN e.amount_cents ELSE -e.amount_cents END), 0) AS entries_cents,
             count(*) FILTER (WHERE e.entry_status IN ('VOIDED', 'CANCELLED', 'REJECTED')) AS dead,
             count(*) FILTER (WHERE e.base_currency <> a.currency) AS foreign,
             count(*) FILTER (WHERE NOT e.is_reconciled) AS unreconciled
        INTO v
        FROM bank_matches bm
        JOIN bank_accounts a ON a.id = bm.bank_account_id
        LEFT JOIN bank_match_entries me ON me.match_id = bm.id
        LEFT JOIN entries e ON e.id = me.entry_id
       WHERE bm.id = m
       GROUP BY a.currency;
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

/** 0024's check of a line's match (0043 checks a match written in one statement once, and restores this on the way down). */
export const BANK_LINES_MATCH_CHECK_0024 = `
    CREATE FUNCTION bank_lines_match_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.match_id IS NOT NULL THEN
        PERFORM bank_match_enforce(OLD.match_id);
      END IF;
      IF TG_OP <> 'DELETE' AND NEW.match_id IS NOT NULL THEN
        IF TG_OP = 'INSERT' OR NEW.match_id IS DISTINCT FROM OLD.match_id THEN
          PERFORM bank_match_enforce(NEW.match_id);
        END IF;
      END IF;
      RETURN NULL;
    END $$;
`;

/** 0024's check of a match's entries, and its row triggers on lines and match entries (0044 replaces them by statement
 * triggers, and restores these on the way down). */
export const BANK_MATCH_ENTRIES_CHECK_0024 = `
    CREATE FUNCTION bank_match_entries_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM bank_match_enforce(CASE WHEN TG_OP = 'DELETE' THEN OLD.match_id ELSE NEW.match_id END);
      RETURN NULL;
    END $$;
`;
export const BANK_MATCH_ROW_TRIGGERS_0024 = `
    -- an import inserts its lines UNMATCHED: no check queued for them
    CREATE CONSTRAINT TRIGGER bank_lines_match_balance_insert AFTER INSERT ON bank_lines
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.match_id IS NOT NULL) EXECUTE FUNCTION bank_lines_match_check();
    CREATE CONSTRAINT TRIGGER bank_lines_match_balance_update AFTER UPDATE ON bank_lines
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      WHEN (OLD.match_id IS DISTINCT FROM NEW.match_id OR (NEW.match_id IS NOT NULL AND OLD.amount_cents IS DISTINCT FROM NEW.amount_cents))
      EXECUTE FUNCTION bank_lines_match_check();
    CREATE CONSTRAINT TRIGGER bank_lines_match_balance_delete AFTER DELETE ON bank_lines
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.match_id IS NOT NULL) EXECUTE FUNCTION bank_lines_match_check();
    CREATE CONSTRAINT TRIGGER bank_match_entries_balance AFTER INSERT OR UPDATE OR DELETE ON bank_match_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bank_match_entries_check();
`;

/**
 * CONTRACT §14 "A match always balances", held by PostgreSQL at commit (issue 28): for every bank match, the
 * signed sum of its lines equals the signed sum of its entries (INCOME +, EXPENSE −), each entry has the account's
 * currency, and none is VOIDED, CANCELLED or REJECTED; a matched entry is reconciled (the core clears the flag only
 * after the match is gone, and migration 0014's guard refuses to clear it before).
 *
 * Deferred constraint triggers, because a match is written over several statements (the match, its entries, its
 * lines). They fire on what can unbalance a match: a line joining, leaving or changing its amount while matched;
 * an entry joining or leaving a match; a matched entry's amount, type, currency or status changing. The last one is
 * filtered by `is_reconciled` (matched implies reconciled, checked here), so the writes of the many unmatched
 * entries never queue a check.
 */
export const m0024: Migration = {
  name: '0024-bank-match-balance',
  up: sql(`
${BANK_MATCH_ENFORCE_0024}

${BANK_LINES_MATCH_CHECK_0024}
${BANK_MATCH_ENTRIES_CHECK_0024}
    CREATE FUNCTION entries_match_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM bank_match_enforce(me.match_id) FROM bank_match_entries me WHERE me.entry_id = NEW.id;
      RETURN NULL;
    END $$;

${BANK_MATCH_ROW_TRIGGERS_0024}
    CREATE CONSTRAINT TRIGGER entries_match_balance AFTER UPDATE ON entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      WHEN (OLD.is_reconciled AND (OLD.amount_cents IS DISTINCT FROM NEW.amount_cents
            OR OLD.entry_type IS DISTINCT FROM NEW.entry_type
            OR OLD.base_currency IS DISTINCT FROM NEW.base_currency
            OR OLD.entry_status IS DISTINCT FROM NEW.entry_status))
      EXECUTE FUNCTION entries_match_check();
  `),
  down: sql(`
    DROP TRIGGER entries_match_balance ON entries;
    DROP TRIGGER bank_match_entries_balance ON bank_match_entries;
    DROP TRIGGER bank_lines_match_balance_delete ON bank_lines;
    DROP TRIGGER bank_lines_match_balance_update ON bank_lines;
    DROP TRIGGER bank_lines_match_balance_insert ON bank_lines;
    DROP FUNCTION entries_match_check();
    DROP FUNCTION bank_match_entries_check();
    DROP FUNCTION bank_lines_match_check();
    DROP FUNCTION bank_match_enforce(uuid);
  `),
};
