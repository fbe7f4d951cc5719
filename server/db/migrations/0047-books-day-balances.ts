import { sql, type Migration } from './types.js';

/**
 * The books' balances per day beside those per month (CONTRACT §23, issue 49: a balance as of any date
 * reads a few rows per account). With month rows only, a balance as of the 15th summed half a month of
 * journal lines per account (on the 1,000,000-entry bench about 14,000 heap rows for the busiest one);
 * now it is the month rows before that month plus at most 31 day rows. The general ledger's running
 * balance before a page reads the same rows plus the lines of the cursor's day.
 *
 * Kept by the deferred trigger that keeps the month rows, in the same transaction, behind the same
 * workspace lock (class 4246); filled once from the lines here. TRUNCATE is refused as for the others.
 *
 * And the accounts each role has had (`ledger_role_history`, kept by a trigger on ledger_roles): PUT
 * /ledger/roles changes the accounts of postings from then on and edits no line, so GET /ledger/verify
 * reads a line on an account that has since left its role as a line on the role's account now
 * (`books_sig_mapped`), instead of reporting every entry posted before the change.
 */
/** The upserts of one journal line into the month and the day balance rows. */
const MONTH_UPSERT = `INSERT INTO ledger_balances AS b (workspace_id, category_id, month, debit_cents, credit_cents)
      VALUES (NEW.workspace_id, NEW.category_id, date_trunc('month', NEW.txn_date)::date, NEW.debit_cents, NEW.credit_cents)
      ON CONFLICT (workspace_id, category_id, month)
        DO UPDATE SET debit_cents = b.debit_cents + EXCLUDED.debit_cents, credit_cents = b.credit_cents + EXCLUDED.credit_cents;`;
const DAY_UPSERT = `INSERT INTO ledger_day_balances AS b (workspace_id, category_id, day, debit_cents, credit_cents)
      VALUES (NEW.workspace_id, NEW.category_id, NEW.txn_date, NEW.debit_cents, NEW.credit_cents)
      ON CONFLICT (workspace_id, category_id, day)
        DO UPDATE SET debit_cents = b.debit_cents + EXCLUDED.debit_cents, credit_cents = b.credit_cents + EXCLUDED.credit_cents;`;

/** The deferred row trigger's function of 0045 (month rows only) or of 0047 (month and day rows): the same lock first. */
const balancesTrigger = (upserts: string[]) => `CREATE OR REPLACE FUNCTION journal_lines_balances() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(4246, NEW.workspace_id);
      ${upserts.join('\n      ')}
      RETURN NULL;
    END $$;`;

export const m0047: Migration = {
  name: '0047-books-day-balances',
  up: sql(`
    CREATE TABLE ledger_day_balances (
      workspace_id int NOT NULL,
      category_id uuid NOT NULL,
      day date NOT NULL,
      debit_cents bigint NOT NULL,
      credit_cents bigint NOT NULL,
      PRIMARY KEY (workspace_id, category_id, day)
    );

    INSERT INTO ledger_day_balances (workspace_id, category_id, day, debit_cents, credit_cents)
    SELECT workspace_id, category_id, txn_date, sum(debit_cents)::bigint, sum(credit_cents)::bigint
      FROM journal_lines GROUP BY workspace_id, category_id, txn_date;
    -- statistics now: the first reads after the migration planned without them (trial balance p95 55 ms, then 31 ms)
    ANALYZE ledger_day_balances;

    CREATE TRIGGER ledger_day_balances_no_truncate BEFORE TRUNCATE ON ledger_day_balances
      FOR EACH STATEMENT EXECUTE FUNCTION journal_append_only();

    CREATE TABLE ledger_role_history (
      workspace_id int NOT NULL,
      role text NOT NULL,
      category_id uuid NOT NULL,
      PRIMARY KEY (workspace_id, role, category_id)
    );
    INSERT INTO ledger_role_history (workspace_id, role, category_id) SELECT workspace_id, role, category_id FROM ledger_roles;
    CREATE FUNCTION ledger_role_remembered() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ledger_role_history (workspace_id, role, category_id) VALUES (NEW.workspace_id, NEW.role, NEW.category_id)
      ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$;
    CREATE TRIGGER ledger_roles_remembered AFTER INSERT OR UPDATE OF category_id ON ledger_roles
      FOR EACH ROW EXECUTE FUNCTION ledger_role_remembered();

    -- the line signature [[category, debit, credit], …] of a posting with each category of the map m (retired role
    -- account → the role's account now) replaced; m NULL: unchanged
    CREATE FUNCTION books_sig_mapped(sig jsonb, m jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN m IS NULL OR sig IS NULL THEN sig ELSE
        (SELECT jsonb_agg(jsonb_build_array(COALESCE(m -> (e ->> 0), e -> 0), e -> 1, e -> 2) ORDER BY o)
           FROM jsonb_array_elements(sig) WITH ORDINALITY AS x(e, o)) END
    $$;

    ${balancesTrigger([MONTH_UPSERT, DAY_UPSERT])}
  `),
  down: sql(`
    ${balancesTrigger([MONTH_UPSERT])}
    DROP TABLE ledger_day_balances;
    DROP TRIGGER ledger_roles_remembered ON ledger_roles;
    DROP FUNCTION ledger_role_remembered(), books_sig_mapped(jsonb, jsonb);
    DROP TABLE ledger_role_history;
  `),
};
