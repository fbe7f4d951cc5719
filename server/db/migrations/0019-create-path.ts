import { sql, type Migration } from './types.js';

/**
 * The closed-period check of an entry write with its shared period lock, in ONE round trip (issue 23).
 * A statement's snapshot is taken before it waits for a lock, so a plain `SELECT lock, check` could miss a
 * period closed by the holder of the exclusive lock it waited for. A VOLATILE PL/pgSQL function takes a new
 * snapshot for each statement it runs (READ COMMITTED): its SELECT, after the lock, sees every close that
 * committed before the lock was granted. Lock class 4201 is PERIOD_LOCK_CLASS of
 * server/domains/periods/period-lock.ts (closing and reopening take it exclusively).
 * Returns the name of the closed period of workspace `ws` containing `day`, or NULL.
 */
export const m0019: Migration = {
  name: '0019-create-path',
  up: sql(`
    CREATE FUNCTION entry_write_closed_period(ws int, day date) RETURNS text
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
  `),
  down: sql(`DROP FUNCTION entry_write_closed_period(int, date);`),
};
