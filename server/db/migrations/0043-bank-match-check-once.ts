import { BANK_LINES_MATCH_CHECK_0024 } from './0024-bank-match-balance.js';
import { sql, type Migration } from './types.js';

/** 0043's check of a line's match (0044 replaces the row checks by statement checks and restores this on the way down). */
export const BANK_LINES_MATCH_CHECK_0043 = `
    CREATE OR REPLACE FUNCTION bank_lines_match_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.match_id IS NOT NULL THEN
        PERFORM bank_match_enforce(OLD.match_id);
      END IF;
      IF TG_OP <> 'DELETE' AND NEW.match_id IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.match_id IS DISTINCT FROM OLD.match_id)
         AND NOT EXISTS (
           SELECT 1 FROM bank_lines l JOIN bank_match_entries me ON me.match_id = NEW.match_id
            WHERE l.id = NEW.id AND l.xmin = pg_current_xact_id()::xid AND l.xmax IN ('0'::xid, l.xmin)
              AND me.xmin = l.xmin AND me.cmin = l.cmin AND me.xmax = '0'::xid) THEN
        PERFORM bank_match_enforce(NEW.match_id);
      END IF;
      RETURN NULL;
    END $$;
`;

/**
 * The match-balance check of 0024 once per new match instead of twice (issue 28's auto-match bench).
 *
 * A match written in one statement (auto-match's, and any CTE like it) queues two deferred checks of it: one from its
 * line joining, one from its entry joining. The line's check is left out when an entry row of the same match was
 * written by the same command of this transaction as the line's current row (same xmin, the transaction's own, and
 * same cmin): that entry row queued its own check of the match (bank_match_entries_balance fires on every insert and
 * update, without a condition) from the same statement, so it fires no earlier than the line's change and reads the
 * match as it then is. A line leaving a match, or its amount changing, is still checked by the line's own trigger, and
 * so is a line joining a match in a statement of its own.
 *
 * cmin is the row's raw command id, which is a combo id instead when the row was updated or deleted inside a savepoint
 * later rolled back; a combo id could equal another command's id by chance. So the entry row must carry no xmax (it
 * was never updated, deleted or locked), and the line's xmax must be empty or this transaction's own: auto-match locks
 * its lines before it writes them, and the lock stays on the written row. A line updated in a rolled-back savepoint
 * keeps that savepoint's xid as its xmax, so it is checked as before; only a transaction that then locks the line again
 * hides that, and it would also need the checks set IMMEDIATE for the skipped check to matter.
 */
export const m0043: Migration = {
  name: '0043-bank-match-check-once',
  up: sql(BANK_LINES_MATCH_CHECK_0043),
  down: sql(BANK_LINES_MATCH_CHECK_0024.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION')),
};
