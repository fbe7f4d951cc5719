import { sql, type Migration } from './types.js';

/**
 * CONTRACT §7 "A closed period's totals never move", held by PostgreSQL (issue 28).
 *
 * `closed_period_name(ws, day)` is the ONE definition of "in a closed period": the name of the CLOSED period of
 * workspace `ws` containing `day` (bounds inclusive), or NULL. Every check calls it: the ledger core's (through
 * `entry_write_closed_period`, which takes the shared period lock first — lock class 4201 of
 * server/domains/periods/period-lock.ts — so that its check, made with a snapshot taken after the lock, sees every
 * close that committed before), the rules' scan, the fx revaluation window, the push preconditions, the ingest
 * batch, and the triggers below.
 *
 * The freeze: an entry write that changes what a period's totals read — the counted status (PENDING,
 * UNDER_REVIEW, COMPLETED counted; REJECTED, CANCELLED, VOIDED not), amount, currency, base amount, type, date,
 * project, parties or workspace — of an entry whose old or new date is in a closed period fails, whichever code
 * path attempts it; so does inserting or deleting an entry dated in one. Inserts and deletes are checked once per
 * statement (an ingest batch is one statement); updates per row, and only when one of those columns changes.
 */
export const m0023: Migration = {
  name: '0023-closed-period-freeze',
  up: sql(`
    CREATE FUNCTION closed_period_name(ws int, day date) RETURNS text LANGUAGE sql STABLE AS $$
      SELECT name FROM accounting_periods
       WHERE workspace_id = ws AND status = 'CLOSED' AND start_date <= day AND end_date >= day
       ORDER BY start_date LIMIT 1
    $$;

    CREATE OR REPLACE FUNCTION entry_write_closed_period(ws int, day date) RETURNS text
      LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      closed text;
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(4201, ws);
      SELECT closed_period_name(ws, day) INTO closed;
      RETURN closed;
    END $$;

    CREATE FUNCTION entry_closed_period_refuse(entry_id bigint, day date, closed text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'entry % is dated % in the closed accounting period "%": its totals cannot move', entry_id, day, closed
        USING ERRCODE = 'check_violation', CONSTRAINT = 'entry_closed_period';
    END $$;

    CREATE FUNCTION entries_closed_period_row() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      closed text;
    BEGIN
      closed := entry_write_closed_period(OLD.workspace_id, OLD.entry_date);
      IF closed IS NOT NULL THEN
        PERFORM entry_closed_period_refuse(OLD.id, OLD.entry_date, closed);
      END IF;
      closed := entry_write_closed_period(NEW.workspace_id, NEW.entry_date);
      IF closed IS NOT NULL THEN
        PERFORM entry_closed_period_refuse(NEW.id, NEW.entry_date, closed);
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION entries_closed_period_rows() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      hit record;
    BEGIN
      -- the shared lock of every workspace first, then the check in a later statement (a snapshot after the locks)
      IF TG_OP = 'INSERT' THEN
        PERFORM pg_advisory_xact_lock_shared(4201, ws) FROM (SELECT DISTINCT workspace_id AS ws FROM changed_rows ORDER BY 1) w;
      ELSE
        PERFORM pg_advisory_xact_lock_shared(4201, ws) FROM (SELECT DISTINCT workspace_id AS ws FROM gone_rows ORDER BY 1) w;
      END IF;
      IF TG_OP = 'INSERT' THEN
        SELECT r.id, r.entry_date, c.name INTO hit
          FROM changed_rows r, LATERAL (SELECT closed_period_name(r.workspace_id, r.entry_date) AS name) c
         WHERE c.name IS NOT NULL LIMIT 1;
      ELSE
        SELECT r.id, r.entry_date, c.name INTO hit
          FROM gone_rows r, LATERAL (SELECT closed_period_name(r.workspace_id, r.entry_date) AS name) c
         WHERE c.name IS NOT NULL LIMIT 1;
      END IF;
      IF FOUND THEN
        PERFORM entry_closed_period_refuse(hit.id, hit.entry_date, hit.name);
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER entries_closed_period_insert AFTER INSERT ON entries
      REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_closed_period_rows();
    CREATE TRIGGER entries_closed_period_delete AFTER DELETE ON entries
      REFERENCING OLD TABLE AS gone_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_closed_period_rows();
    CREATE CONSTRAINT TRIGGER entries_closed_period_update AFTER UPDATE ON entries
      FOR EACH ROW
      WHEN ((OLD.entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED')) IS DISTINCT FROM (NEW.entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED'))
            OR OLD.amount_cents IS DISTINCT FROM NEW.amount_cents
            OR OLD.base_currency IS DISTINCT FROM NEW.base_currency
            OR OLD.amount_base_cents IS DISTINCT FROM NEW.amount_base_cents
            OR OLD.entry_type IS DISTINCT FROM NEW.entry_type
            OR OLD.entry_date IS DISTINCT FROM NEW.entry_date
            OR OLD.project_id IS DISTINCT FROM NEW.project_id
            OR OLD.from_party_id IS DISTINCT FROM NEW.from_party_id
            OR OLD.to_party_id IS DISTINCT FROM NEW.to_party_id
            OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id)
      EXECUTE FUNCTION entries_closed_period_row();
  `),
  down: sql(`
    DROP TRIGGER entries_closed_period_update ON entries;
    DROP TRIGGER entries_closed_period_delete ON entries;
    DROP TRIGGER entries_closed_period_insert ON entries;
    DROP FUNCTION entries_closed_period_rows();
    DROP FUNCTION entries_closed_period_row();
    DROP FUNCTION entry_closed_period_refuse(bigint, date, text);
    CREATE OR REPLACE FUNCTION entry_write_closed_period(ws int, day date) RETURNS text
      LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      closed text;
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(4201, ws);
      SELECT name INTO closed FROM accounting_periods
       WHERE workspace_id = ws AND status = 'CLOSED' AND start_date <= day AND end_date >= day
       LIMIT 1;
      RETURN closed;
    END $$;
    DROP FUNCTION closed_period_name(int, date);
  `),
};
