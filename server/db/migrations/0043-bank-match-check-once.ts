import { sql, type Migration } from './types.js';

const LINES_CHECK_0024 = `
    CREATE OR REPLACE FUNCTION bank_lines_match_check() RETURNS trigger LANGUAGE plpgsql AS $$
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

/**
 * The match-balance check of 0024 once per new match instead of twice (issue 28's auto-match bench: 10,000 matches
 * cost 0.72 s of checks at commit, 0.49 s with this).
 *
 * A match written in one statement (auto-match's, and any CTE like it) queues two deferred checks of it: one from its
 * line joining, one from its entry joining. The line's check is left out when an entry row of the same match was
 * written by the same command as the line's current row (same xmin and cmin): that entry row queued its own check of
 * the match (bank_match_entries_balance fires on every insert and update, without a condition), from the same
 * statement, so it fires no earlier than the line's change and reads the match as it then is. Both rows must carry no
 * xmax: a row deleted or updated inside a rolled-back savepoint keeps a combo command id in place of its cmin, which
 * could equal another command's id by chance; with no xmax there is no combo id. A line leaving a match, or its amount
 * changing, is still checked by the line's own trigger, and a line joining a match in a statement of its own too.
 */
export const m0043: Migration = {
  name: '0043-bank-match-check-once',
  up: sql(`
    CREATE OR REPLACE FUNCTION bank_lines_match_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.match_id IS NOT NULL THEN
        PERFORM bank_match_enforce(OLD.match_id);
      END IF;
      IF TG_OP <> 'DELETE' AND NEW.match_id IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.match_id IS DISTINCT FROM OLD.match_id)
         AND NOT EXISTS (
           SELECT 1 FROM bank_lines l JOIN bank_match_entries me ON me.match_id = NEW.match_id
            WHERE l.id = NEW.id AND l.xmax = '0'::xid AND me.xmax = '0'::xid AND me.xmin = l.xmin AND me.cmin = l.cmin) THEN
        PERFORM bank_match_enforce(NEW.match_id);
      END IF;
      RETURN NULL;
    END $$;
  `),
  down: sql(LINES_CHECK_0024),
};
