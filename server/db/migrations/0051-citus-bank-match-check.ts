import type { Sequelize } from 'sequelize-typescript';
import { citusInstalled, distributeOnCitus } from '../citus.js';
import { outdent, replaceOnce, type Migration } from './types.js';
import { BANK_MATCHES_ENFORCE_0044 } from './0044-bank-match-statement-check.js';

/**
 * CONTRACT §24 (issue 50): the bank-match balance check (CONTRACT §14, 0044) runs on Citus.
 *
 * 0044 notes the matches a statement changed as a row of bank_match_checks, a table without a workspace, which 0049
 * therefore left on the coordinator; its deferred trigger then checks them with bank_match_state(ids), which reads
 * bank_matches, bank_lines, bank_match_entries and entries by id alone. On Citus the statement triggers of bank_lines
 * and bank_match_entries fire on the workers, where a write to the coordinator's table from a trigger on a shard is
 * refused ("cannot execute a distributed query from a query on a shard", a remote task in a trigger), and the check's
 * joins by id alone are refused too ("complex joins …"): a manual match, and the deletion of any match, failed there.
 *
 * Now every row of bank_match_checks names the workspace of the matches it notes (the statement triggers note one row
 * per workspace of the rows they wrote, from the transition tables' workspace_id), the deferred check takes the rows
 * of its own row's workspace, and bank_matches_enforce(ws, ids) checks them with bank_match_state(ws, ids), which on
 * Citus reads that workspace only (bank_match_enforce(ws, m) for entries_match_balance). bank_match_checks is made
 * again with its workspace (it is empty outside a transaction, so nothing is lost) and on Citus distributed by
 * workspace_id, co-located with the other tenant tables (distributeOnCitus, as 0049): every read and write of the
 * check is in the workspace's shard group, on the worker where the trigger fires, which Citus allows inside a trigger
 * (local tasks only).
 *
 * Same rule and same answers on plain PostgreSQL, where bank_match_state's statement stays 0044's (on Citus the added
 * `workspace_id = ws` conditions hold for every row it reads: a match's rows all carry the match's workspace, 0014's
 * composite foreign keys). A transaction that changed matches of two workspaces gets one check per workspace instead
 * of one for both (none does so today: a match, an auto-match and an import each act on one account).
 */
/**
 * The one reading of the rule (0044's), of matches of workspace ws. On Citus every table names the workspace, so that
 * the statement runs in its shard group; on plain PostgreSQL the statement stays 0044's (its generic plan finds each
 * match, line and entry by its id or match_id; a constant workspace would let it read a workspace's rows instead).
 */
const bankMatchState = (citus: boolean) => {
  const ws = (alias: string) => (citus ? ` AND ${alias}.workspace_id = ws` : '');
  return `
  CREATE FUNCTION bank_match_state(ws int, ids uuid[])
    RETURNS TABLE (checked_match uuid, account_currency text, lines_cents numeric, entries_cents numeric, entries_ok boolean, balanced boolean)
    LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $$
  BEGIN
    RETURN QUERY
    SELECT bm.id, a.currency::text, ls.cents, x.cents, x.ok, ls.cents = x.cents AND x.ok
      FROM (SELECT m.id, m.bank_account_id FROM bank_matches m WHERE m.id = ANY(ids)${ws('m')} OFFSET 0) bm
      JOIN bank_accounts a ON a.id = bm.bank_account_id${ws('a')}
      CROSS JOIN LATERAL (SELECT COALESCE(sum(l.amount_cents), 0) AS cents FROM bank_lines l WHERE l.match_id = bm.id${ws('l')}) ls
      CROSS JOIN LATERAL (
        SELECT COALESCE(sum(CASE WHEN e.entry_type = 'INCOME' THEN e.amount_cents ELSE -e.amount_cents END), 0) AS cents,
               COALESCE(bool_and(e.entry_status NOT IN ('VOIDED', 'CANCELLED', 'REJECTED')
                                 AND e.base_currency = a.currency AND e.is_reconciled), true) AS ok
          FROM bank_match_entries me JOIN entries e ON e.id = me.entry_id${ws('e')}
         WHERE me.match_id = bm.id${ws('me')}
      ) x;
  END $$;
`;
};

/**
 * 0044's bank_matches_enforce, of matches of workspace ws: the workspace is its first argument and passed on to
 * bank_match_state; nothing else changes (indented as the other functions of this migration).
 */
const OF_0044 = "0044's bank_matches_enforce (0051)";
const BANK_MATCHES_ENFORCE = outdent(
  replaceOnce(
    replaceOnce(BANK_MATCHES_ENFORCE_0044, 'bank_matches_enforce(ids uuid[])', 'bank_matches_enforce(ws int, ids uuid[])', OF_0044),
    'bank_match_state(ids)',
    'bank_match_state(ws, ids)',
    OF_0044,
  ),
  2,
  OF_0044,
);

const FUNCTIONS = `
  -- the first unbalanced match of ids (matches of workspace ws), if any, raises
${BANK_MATCHES_ENFORCE}
  CREATE FUNCTION bank_match_enforce(ws int, m uuid) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM bank_matches_enforce(ws, ARRAY[m]);
  END $$;

  -- the first check to fire in a workspace takes every row of the transaction in that workspace
  CREATE OR REPLACE FUNCTION bank_match_checks_enforce() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    ids uuid[];
  BEGIN
    WITH taken AS (DELETE FROM bank_match_checks WHERE workspace_id = NEW.workspace_id RETURNING match_ids)
    SELECT array_agg(DISTINCT m) INTO ids FROM taken CROSS JOIN LATERAL unnest(taken.match_ids) AS m;
    IF ids IS NOT NULL THEN
      PERFORM bank_matches_enforce(NEW.workspace_id, ids);
    END IF;
    RETURN NULL;
  END $$;

  CREATE FUNCTION bank_matches_changed(ws int, ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF cardinality(ids) > 0 THEN
      INSERT INTO bank_match_checks (workspace_id, match_ids) VALUES (ws, ids);
    END IF;
  END $$;

  -- the matches of the rows a statement wrote to bank_lines or bank_match_entries, one row per workspace
  CREATE OR REPLACE FUNCTION bank_match_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM bank_matches_changed(c.ws, c.ids)
         FROM (SELECT n.workspace_id AS ws, array_agg(n.match_id) AS ids FROM new_rows n WHERE n.match_id IS NOT NULL GROUP BY 1 ORDER BY 1) c;
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM bank_matches_changed(c.ws, c.ids)
         FROM (SELECT o.workspace_id AS ws, array_agg(o.match_id) AS ids FROM old_rows o WHERE o.match_id IS NOT NULL GROUP BY 1 ORDER BY 1) c;
    ELSE
      PERFORM bank_matches_changed(c.ws, c.ids)
         FROM (SELECT r.ws, array_agg(r.m) AS ids
                 FROM (SELECT n.workspace_id AS ws, n.match_id AS m FROM new_rows n WHERE n.match_id IS NOT NULL
                       UNION ALL SELECT o.workspace_id, o.match_id FROM old_rows o WHERE o.match_id IS NOT NULL) r
                GROUP BY 1 ORDER BY 1) c;
    END IF;
    RETURN NULL;
  END $$;

  CREATE OR REPLACE FUNCTION bank_lines_match_row() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'DELETE' THEN
      PERFORM bank_matches_changed(OLD.workspace_id, ARRAY[OLD.match_id]);
    ELSE
      PERFORM bank_matches_changed(NEW.workspace_id, ARRAY[NEW.match_id]);
    END IF;
    RETURN NULL;
  END $$;

  CREATE OR REPLACE FUNCTION entries_match_check() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM bank_match_enforce(NEW.workspace_id, me.match_id) FROM bank_match_entries me WHERE me.workspace_id = NEW.workspace_id AND me.entry_id = NEW.id;
    RETURN NULL;
  END $$;

  DROP FUNCTION bank_match_enforce(uuid), bank_matches_enforce(uuid[]), bank_match_state(uuid[]), bank_matches_changed(uuid[]);
`;

export const m0051: Migration = {
  name: '0051-citus-bank-match-check',
  up: async (db: Sequelize) => {
    // the table is empty outside a transaction (no row outlives its transaction): made again, with its workspace
    await db.query(`
      DROP TABLE bank_match_checks;
      CREATE TABLE bank_match_checks (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        workspace_id integer NOT NULL,
        match_ids uuid[] NOT NULL
      );
      CREATE CONSTRAINT TRIGGER bank_match_balance AFTER INSERT ON bank_match_checks
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bank_match_checks_enforce();
      ${bankMatchState(await citusInstalled(db))}
      ${FUNCTIONS}`);
    // on Citus a tenant table like the others (0049's distribution: co-located by workspace_id, its key widened)
    await distributeOnCitus(db);
  },
  // the check with a workspace holds 0044's rule: it stays (as 0050's settlement day does)
  down: async () => {},
};
