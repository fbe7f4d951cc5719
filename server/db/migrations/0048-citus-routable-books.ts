import type { Sequelize } from 'sequelize-typescript';
import { plpgsqlOnCitus } from '../citus.js';
import type { Migration } from './types.js';

/**
 * CONTRACT §24 (issue 50): the books' posting and the deferred checks each read one workspace, so that on Citus every
 * statement they run is routed to the workspace's shard group. Citus routes a statement to one shard group only when
 * every distributed table in it is filtered by (or joined on) `workspace_id`; these functions joined some tables by
 * id alone (a settlement's match, account and bank lines; a posting's journal lines and reversals; a journal line's
 * transaction; the correction chains and caps of §5), which Citus refuses ("complex joins are only supported when all
 * distributed tables are co-located and joined on their distribution columns").
 *
 * Same results on plain PostgreSQL: every added `workspace_id` equality holds already for the rows they read (the
 * composite foreign keys tie each row to its entry's, match's or transaction's workspace). The caps gain a workspace
 * argument (entry_cap_totals(ws, ids), entry_caps_enforce(ws, id), entry_correction_chain(ws, e)); the deferred cap
 * triggers pass their row's workspace, the ledger core passes the entries'; so does the tag re-ranking
 * (entry_tags_rerank(ws, ids)). Their one-argument forms (0012, 0021) go: nothing calls them any more.
 */
/** 0048's derivation of what each entry posts (0050 dates a settlement's day in the statement itself). */
export const BOOKS_EXPECTED_ENTRIES_0048 = `
  -- THE derivation (CONTRACT §23 "What posts", "Settlement"): the lines each of the entries ids should have posted
  -- now, kinds ENTRY and SETTLEMENT. Nothing for an entry out of the counted statuses or without a base amount.
  CREATE OR REPLACE FUNCTION books_expected_entries(ws int, ids bigint[])
    RETURNS TABLE (entry_id bigint, kind text, txn_date date, bank_match_id uuid, bank_account_id uuid,
                   line_no int, category_id uuid, debit_cents bigint, credit_cents bigint)
    LANGUAGE sql STABLE AS $$
    WITH roles AS (
      SELECT (array_agg(r.category_id) FILTER (WHERE r.role = 'BANK'))[1] AS bank,
             (array_agg(r.category_id) FILTER (WHERE r.role = 'RECEIVABLE'))[1] AS receivable,
             (array_agg(r.category_id) FILTER (WHERE r.role = 'PAYABLE'))[1] AS payable,
             (array_agg(r.category_id) FILTER (WHERE r.role = 'REVENUE'))[1] AS revenue,
             (array_agg(r.category_id) FILTER (WHERE r.role = 'EXPENSE'))[1] AS expense
        FROM ledger_roles r WHERE r.workspace_id = ws
    ),
    e AS (
      SELECT e.id, e.entry_type, e.entry_date, e.amount_base_cents AS a, e.fx_rate::numeric AS rate,
             books_currency_exponent(w.base_currency) - books_currency_exponent(e.base_currency) AS shift,
             CASE e.entry_type WHEN 'INCOME' THEN 'REVENUE' ELSE 'EXPENSE' END AS pl_type,
             CASE WHEN c.account_type = CASE e.entry_type WHEN 'INCOME' THEN 'REVENUE' ELSE 'EXPENSE' END THEN c.id
                  WHEN e.entry_type = 'INCOME' THEN r.revenue ELSE r.expense END AS account,
             CASE e.entry_type WHEN 'INCOME' THEN r.receivable ELSE r.payable END AS side,
             r.bank
        FROM entries e
        JOIN workspaces w ON w.id = ws
        CROSS JOIN roles r
        LEFT JOIN accounting_categories c ON c.id = e.category_id AND c.workspace_id = e.workspace_id
       WHERE e.workspace_id = ws AND e.id = ANY(ids)
         AND e.entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED') AND e.amount_base_cents > 0
    ),
    item AS (
      SELECT i.entry_id, i.position, i.amount_cents,
             CASE WHEN ic.account_type = e.pl_type THEN ic.id END AS own_account
        FROM e JOIN entry_items i ON i.entry_id = e.id AND i.workspace_id = ws
        LEFT JOIN accounting_categories ic ON ic.id = i.category_id AND ic.workspace_id = ws
    ),
    -- with items that carry a category of the entry's type: one line per account, each item converted at the
    -- entry's rate and rounded half away from zero (numeric round), the cents left on the largest line (the first)
    per_account AS (
      SELECT it.entry_id, COALESCE(it.own_account, e.account) AS account, min(it.position) AS first,
             sum(round(it.amount_cents * e.rate * 10::numeric ^ e.shift))::bigint AS cents
        FROM item it JOIN e ON e.id = it.entry_id
       WHERE it.entry_id IN (SELECT x.entry_id FROM item x WHERE x.own_account IS NOT NULL)
       GROUP BY 1, 2
    ),
    split AS (
      SELECT p.entry_id, p.account, p.first,
             p.cents + CASE WHEN row_number() OVER (PARTITION BY p.entry_id ORDER BY p.cents DESC, p.first) = 1
                            THEN e.a - sum(p.cents) OVER (PARTITION BY p.entry_id) ELSE 0 END AS cents
        FROM per_account p JOIN e ON e.id = p.entry_id
      UNION ALL
      SELECT e.id, e.account, 0, e.a FROM e WHERE NOT EXISTS (SELECT 1 FROM per_account p WHERE p.entry_id = e.id)
    ),
    pl AS (
      SELECT s.entry_id, s.account, s.cents::bigint AS cents, row_number() OVER (PARTITION BY s.entry_id ORDER BY s.first, s.account)::int AS n,
             count(*) OVER (PARTITION BY s.entry_id)::int AS of_n
        FROM split s WHERE s.cents > 0
    ),
    settle AS (
      SELECT e.id, e.entry_type, e.a, e.side, me.match_id, m.bank_account_id, COALESCE(ba.ledger_category_id, e.bank) AS bank_account,
             books_open_day(ws, (SELECT max(l.booking_date) FROM bank_lines l WHERE l.workspace_id = ws AND l.match_id = me.match_id)) AS day
        FROM e
        JOIN bank_match_entries me ON me.entry_id = e.id AND me.workspace_id = ws
        JOIN bank_matches m ON m.id = me.match_id AND m.workspace_id = ws
        JOIN bank_accounts ba ON ba.id = m.bank_account_id AND ba.workspace_id = ws
    )
    SELECT e.id, 'ENTRY', e.entry_date, NULL::uuid, NULL::uuid,
           CASE WHEN e.entry_type = 'INCOME' THEN 1 ELSE 1 + (SELECT max(p.of_n) FROM pl p WHERE p.entry_id = e.id) END,
           e.side, CASE WHEN e.entry_type = 'INCOME' THEN e.a ELSE 0 END, CASE WHEN e.entry_type = 'INCOME' THEN 0 ELSE e.a END
      FROM e
    UNION ALL
    SELECT e.id, 'ENTRY', e.entry_date, NULL, NULL, p.n + CASE WHEN e.entry_type = 'INCOME' THEN 1 ELSE 0 END,
           p.account, CASE WHEN e.entry_type = 'INCOME' THEN 0 ELSE p.cents END, CASE WHEN e.entry_type = 'INCOME' THEN p.cents ELSE 0 END
      FROM pl p JOIN e ON e.id = p.entry_id
    UNION ALL
    SELECT s.id, 'SETTLEMENT', s.day, s.match_id, s.bank_account_id, 1,
           CASE WHEN s.entry_type = 'INCOME' THEN s.bank_account ELSE s.side END, s.a, 0
      FROM settle s WHERE s.day IS NOT NULL
    UNION ALL
    SELECT s.id, 'SETTLEMENT', s.day, s.match_id, s.bank_account_id, 2,
           CASE WHEN s.entry_type = 'INCOME' THEN s.side ELSE s.bank_account END, 0, s.a
      FROM settle s WHERE s.day IS NOT NULL
  $$;
`;

const BOOKS =
  BOOKS_EXPECTED_ENTRIES_0048 +
  `  -- the live (not reversed) ENTRY and SETTLEMENT transactions of the entries ids, each with its lines as one value
  CREATE OR REPLACE FUNCTION books_live_entries(ws int, ids bigint[])
    RETURNS TABLE (id bigint, entry_id bigint, kind text, txn_date date, bank_match_id uuid, bank_account_id uuid, sig jsonb)
    LANGUAGE sql STABLE AS $$
    SELECT t.id, t.entry_id, t.kind, t.txn_date, t.bank_match_id, t.bank_account_id,
           (SELECT jsonb_agg(jsonb_build_array(l.category_id, l.debit_cents, l.credit_cents) ORDER BY l.line_no)
              FROM journal_lines l WHERE l.workspace_id = ws AND l.transaction_id = t.id)
      FROM journal_transactions t
     WHERE t.workspace_id = ws AND t.entry_id = ANY(ids) AND t.kind IN ('ENTRY', 'SETTLEMENT')
       AND NOT EXISTS (SELECT 1 FROM journal_transactions r WHERE r.workspace_id = ws AND r.reverses = t.id)
  $$;
  -- posting (CONTRACT §23 "Changes never edit lines"): every live posting of the entries ids that differs from what
  -- they post now is reversed (same date; a settlement's reversal out of closed periods), and what is missing is
  -- posted, in one statement. A settlement whose match and lines stay is kept whatever its date. Returns the number
  -- of transactions posted.
  CREATE OR REPLACE FUNCTION books_post_entries(ws int, ids bigint[]) RETURNS int LANGUAGE plpgsql AS $$
  DECLARE
    posted int;
  BEGIN
    IF COALESCE(cardinality(ids), 0) = 0 THEN
      RETURN 0;
    END IF;
    PERFORM books_ensure_roles(ws);
    WITH exp AS MATERIALIZED (SELECT * FROM books_expected_entries(ws, ids)),
    exp_tx AS (
      SELECT x.entry_id, x.kind, x.txn_date, x.bank_match_id, x.bank_account_id,
             jsonb_agg(jsonb_build_array(x.category_id, x.debit_cents, x.credit_cents) ORDER BY x.line_no) AS sig
        FROM exp x GROUP BY 1, 2, 3, 4, 5
    ),
    live AS MATERIALIZED (SELECT * FROM books_live_entries(ws, ids)),
    kept AS (
      SELECT l.id, x.entry_id, x.kind, x.bank_match_id
        FROM live l JOIN exp_tx x
          ON x.entry_id = l.entry_id AND x.kind = l.kind AND x.bank_match_id IS NOT DISTINCT FROM l.bank_match_id
         AND x.bank_account_id IS NOT DISTINCT FROM l.bank_account_id
         AND (x.kind = 'SETTLEMENT' OR x.txn_date = l.txn_date) AND x.sig = l.sig
    ),
    todo AS (
      SELECT 1 AS step, l.id AS reverses, l.entry_id, 'REVERSAL'::text AS kind,
             CASE WHEN l.kind = 'SETTLEMENT' THEN books_open_day(ws, l.txn_date) ELSE l.txn_date END AS txn_date,
             l.bank_match_id, l.bank_account_id, l.kind AS of_kind
        FROM live l WHERE NOT EXISTS (SELECT 1 FROM kept k WHERE k.id = l.id)
      UNION ALL
      SELECT 2, NULL::bigint, x.entry_id, x.kind, x.txn_date, x.bank_match_id, x.bank_account_id, x.kind
        FROM exp_tx x
       WHERE NOT EXISTS (SELECT 1 FROM kept k WHERE k.entry_id = x.entry_id AND k.kind = x.kind
                                                AND k.bank_match_id IS NOT DISTINCT FROM x.bank_match_id)
    ),
    numbered AS MATERIALIZED (
      SELECT nextval('journal_transactions_id_seq'::regclass) AS id, t.*
        FROM (SELECT * FROM todo ORDER BY step, entry_id, of_kind DESC) t
    ),
    ins_tx AS (
      INSERT INTO journal_transactions (id, workspace_id, kind, txn_date, entry_id, bank_match_id, bank_account_id, reverses)
      SELECT n.id, ws, n.kind, n.txn_date, n.entry_id, n.bank_match_id, n.bank_account_id, n.reverses FROM numbered n
    ),
    ins_lines AS (
      INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, description, txn_date, kind, entry_id)
      SELECT n.id, ws, l.line_no, l.category_id, l.credit_cents, l.debit_cents, l.description, n.txn_date, n.kind, n.entry_id
        FROM numbered n JOIN journal_lines l ON l.workspace_id = ws AND l.transaction_id = n.reverses
       WHERE n.step = 1
      UNION ALL
      SELECT n.id, ws, x.line_no, x.category_id, x.debit_cents, x.credit_cents, NULL, n.txn_date, n.kind, n.entry_id
        FROM numbered n JOIN exp x ON x.entry_id = n.entry_id AND x.kind = n.kind AND x.bank_match_id IS NOT DISTINCT FROM n.bank_match_id
       WHERE n.step = 2
    )
    SELECT count(*) INTO posted FROM numbered;
    RETURN posted;
  END $$;
  -- reverses the live OPENING of the bank accounts ids that differs, posts what is missing; returns the ids of the
  -- OPENING transactions it posted (for journal.posted)
  CREATE OR REPLACE FUNCTION books_post_bank_openings(ws int, ids uuid[]) RETURNS bigint[] LANGUAGE plpgsql AS $$
  DECLARE
    posted bigint[];
  BEGIN
    IF COALESCE(cardinality(ids), 0) = 0 THEN
      RETURN '{}';
    END IF;
    -- nothing to post nor to reverse: no role account is created for it
    IF NOT EXISTS (SELECT 1 FROM bank_accounts a WHERE a.workspace_id = ws AND a.id = ANY(ids) AND a.opening_balance_cents <> 0 AND a.opening_date IS NOT NULL)
       AND NOT EXISTS (SELECT 1 FROM journal_transactions t WHERE t.workspace_id = ws AND t.bank_account_id = ANY(ids) AND t.kind = 'OPENING') THEN
      RETURN '{}';
    END IF;
    PERFORM books_ensure_roles(ws);
    WITH exp AS MATERIALIZED (SELECT * FROM books_expected_openings(ws, ids)),
    exp_tx AS (
      SELECT x.bank_account_id, x.txn_date,
             jsonb_agg(jsonb_build_array(x.category_id, x.debit_cents, x.credit_cents) ORDER BY x.line_no) AS sig
        FROM exp x GROUP BY 1, 2
    ),
    live AS MATERIALIZED (
      SELECT t.id, t.bank_account_id, t.txn_date,
             (SELECT jsonb_agg(jsonb_build_array(l.category_id, l.debit_cents, l.credit_cents) ORDER BY l.line_no)
                FROM journal_lines l WHERE l.workspace_id = ws AND l.transaction_id = t.id) AS sig
        FROM journal_transactions t
       WHERE t.workspace_id = ws AND t.bank_account_id = ANY(ids) AND t.kind = 'OPENING'
         AND NOT EXISTS (SELECT 1 FROM journal_transactions r WHERE r.workspace_id = ws AND r.reverses = t.id)
    ),
    kept AS (
      SELECT l.id, l.bank_account_id FROM live l JOIN exp_tx x
          ON x.bank_account_id = l.bank_account_id AND x.txn_date = l.txn_date AND x.sig = l.sig
    ),
    todo AS (
      SELECT 1 AS step, l.id AS reverses, 'REVERSAL'::text AS kind, l.txn_date, l.bank_account_id
        FROM live l WHERE NOT EXISTS (SELECT 1 FROM kept k WHERE k.id = l.id)
      UNION ALL
      SELECT 2, NULL::bigint, 'OPENING', x.txn_date, x.bank_account_id
        FROM exp_tx x WHERE NOT EXISTS (SELECT 1 FROM kept k WHERE k.bank_account_id = x.bank_account_id)
    ),
    numbered AS MATERIALIZED (
      SELECT nextval('journal_transactions_id_seq'::regclass) AS id, t.*
        FROM (SELECT * FROM todo ORDER BY step, bank_account_id) t
    ),
    ins_tx AS (
      INSERT INTO journal_transactions (id, workspace_id, kind, txn_date, bank_account_id, reverses, description)
      SELECT n.id, ws, n.kind, n.txn_date, n.bank_account_id, n.reverses, 'Opening balance' FROM numbered n
    ),
    ins_lines AS (
      INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, txn_date, kind)
      SELECT n.id, ws, l.line_no, l.category_id, l.credit_cents, l.debit_cents, n.txn_date, n.kind
        FROM numbered n JOIN journal_lines l ON l.workspace_id = ws AND l.transaction_id = n.reverses WHERE n.step = 1
      UNION ALL
      SELECT n.id, ws, x.line_no, x.category_id, x.debit_cents, x.credit_cents, n.txn_date, n.kind
        FROM numbered n JOIN exp x ON x.bank_account_id = n.bank_account_id WHERE n.step = 2
    )
    SELECT COALESCE(array_agg(n.id ORDER BY n.id) FILTER (WHERE n.step = 2), '{}') INTO posted FROM numbered n;
    RETURN posted;
  END $$;
`;

const TRIGGERS = `
  CREATE OR REPLACE FUNCTION journal_balance_check() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    d numeric;
    c numeric;
  BEGIN
    SELECT COALESCE(sum(l.debit_cents), 0), COALESCE(sum(l.credit_cents), 0) INTO d, c
      FROM journal_lines l WHERE l.workspace_id = NEW.workspace_id AND l.transaction_id = NEW.transaction_id;
    IF NOT EXISTS (SELECT 1 FROM journal_transactions t
                    WHERE t.workspace_id = NEW.workspace_id AND t.id = NEW.transaction_id AND t.txn_date = NEW.txn_date
                      AND t.kind = NEW.kind AND t.entry_id IS NOT DISTINCT FROM NEW.entry_id) THEN
      RAISE EXCEPTION 'journal line %: its date, kind or entry differ from its transaction %', NEW.id, NEW.transaction_id
        USING ERRCODE = 'check_violation', CONSTRAINT = 'journal_balanced';
    END IF;
    IF d <> c THEN
      RAISE EXCEPTION 'journal transaction %: its debits (%) and credits (%) differ', NEW.transaction_id, d, c
        USING ERRCODE = 'check_violation', CONSTRAINT = 'journal_balanced';
    END IF;
    RETURN NULL;
  END $$;

  CREATE OR REPLACE FUNCTION ledger_role_stays_active() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF EXISTS (SELECT 1 FROM ledger_roles r WHERE r.workspace_id = NEW.workspace_id AND r.category_id = NEW.id) THEN
      RAISE EXCEPTION 'category % is the account of a ledger role: it cannot be deactivated', NEW.id
        USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_role_active';
    END IF;
    RETURN NEW;
  END $$;

  CREATE OR REPLACE FUNCTION bank_match_guard() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF EXISTS (SELECT 1 FROM bank_match_entries WHERE workspace_id = NEW.workspace_id AND entry_id = NEW.id) THEN
      RAISE EXCEPTION 'Entry % is in bank match; delete the match to unreconcile it', NEW.id USING ERRCODE = '23P01', DETAIL = 'The entry is reconciled by a bank match', CONSTRAINT = 'entries_bank_match_guard';
    END IF;
    RETURN NEW;
  END $$;

  CREATE OR REPLACE FUNCTION entries_match_check() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM bank_match_enforce(me.match_id) FROM bank_match_entries me WHERE me.workspace_id = NEW.workspace_id AND me.entry_id = NEW.id;
    RETURN NULL;
  END $$;
`;

const TAGS = `
  -- a tag change re-ranks the entries' tags (0006, 0021) workspace by workspace: the trigger fires on the shard, where
  -- a statement may read only its own shard group
  CREATE OR REPLACE FUNCTION entry_tags_rerank(ws int, entry_ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    -- the UPDATE only when a rank is stale: an UPDATE of no rows still fires the statement triggers
    PERFORM 1
       FROM (SELECT tag_rank, tag_count, row_number() OVER w AS fresh_rank, count(*) OVER w AS fresh_count
               FROM entry_tags
              WHERE workspace_id = ws AND entry_id = ANY (entry_ids)
             WINDOW w AS (PARTITION BY entry_id ORDER BY tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) r
      WHERE (r.tag_rank, r.tag_count) IS DISTINCT FROM (r.fresh_rank::integer, r.fresh_count::integer)
      LIMIT 1;
    IF NOT FOUND THEN
      RETURN;
    END IF;
    UPDATE entry_tags et
       SET tag_rank = r.tag_rank, tag_count = r.tag_count
      FROM (SELECT workspace_id, entry_id, tag_id, row_number() OVER w AS tag_rank, count(*) OVER w AS tag_count
              FROM entry_tags
             WHERE workspace_id = ws AND entry_id = ANY (entry_ids)
            WINDOW w AS (PARTITION BY entry_id ORDER BY tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) r
     WHERE et.workspace_id = ws AND et.workspace_id = r.workspace_id AND et.entry_id = r.entry_id AND et.tag_id = r.tag_id
       AND (et.tag_rank, et.tag_count) IS DISTINCT FROM (r.tag_rank::integer, r.tag_count::integer);
  END $$;

  CREATE OR REPLACE FUNCTION entry_tags_rerank_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM entry_tags_rerank(w.ws, ARRAY(SELECT DISTINCT n.entry_id FROM new_rows n WHERE n.workspace_id = w.ws))
         FROM (SELECT DISTINCT workspace_id AS ws FROM new_rows ORDER BY 1) w;
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM entry_tags_rerank(w.ws, ARRAY(SELECT DISTINCT o.entry_id FROM old_rows o WHERE o.workspace_id = w.ws))
         FROM (SELECT DISTINCT workspace_id AS ws FROM old_rows ORDER BY 1) w;
    ELSIF pg_trigger_depth() = 1 THEN -- an UPDATE, but not the re-ranking's own
      PERFORM entry_tags_rerank(w.ws, ARRAY(SELECT o.entry_id FROM old_rows o WHERE o.workspace_id = w.ws
                                            UNION SELECT n.entry_id FROM new_rows n WHERE n.workspace_id = w.ws))
         FROM (SELECT workspace_id AS ws FROM old_rows UNION SELECT workspace_id FROM new_rows ORDER BY 1) w;
    END IF;
    RETURN NULL;
  END $$;
`;

const CAPS = `
  CREATE OR REPLACE FUNCTION entry_correction_chain(ws int, e bigint) RETURNS TABLE (id bigint) LANGUAGE sql STABLE AS $$
    WITH RECURSIVE up(id) AS (
      SELECT e
      UNION
      SELECT l.original_entry_id FROM entry_links l JOIN up ON l.derived_entry_id = up.id
       WHERE l.workspace_id = ws AND l.link_type = 'CORRECTION'
    ), down(id) AS (
      SELECT id FROM up
      UNION
      SELECT l.derived_entry_id FROM entry_links l JOIN down ON l.original_entry_id = down.id
       WHERE l.workspace_id = ws AND l.link_type = 'CORRECTION'
    )
    SELECT id FROM down
  $$;

  -- the chain walks (entry_correction_chain) run in statements of their own, on arrays: on Citus a statement that
  -- reads a distributed table runs on the workspace's worker, where it may not call a function that reads one again
  -- ("cannot execute a distributed query from a query on a shard")
  CREATE OR REPLACE FUNCTION entry_cap_totals(ws int, ids bigint[])
    RETURNS TABLE (head_entry_id bigint, link_type text, live_cents numeric, amount_cents bigint)
    LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    touched bigint[];
    originals bigint[];
    members bigint[];
    heads bigint[];
    ch_head bigint[];
    ch_id bigint[];
    dv_head bigint[];
    dv_type text[];
    dv_start bigint[];
    d_head bigint[];
    d_type text[];
    d_id bigint[];
  BEGIN
    SELECT array_agg(DISTINCT c.id) INTO touched FROM unnest(ids) AS i(id), LATERAL entry_correction_chain(ws, i.id) c;
    SELECT array_agg(o.id) INTO originals FROM (
      SELECT t.id FROM unnest(touched) AS t(id)
      UNION
      SELECT l.original_entry_id FROM entry_links l
       WHERE l.workspace_id = ws AND l.derived_entry_id = ANY (touched) AND l.link_type IN ('REFUND', 'REIMBURSEMENT')
    ) o;
    SELECT array_agg(DISTINCT h.id) INTO members FROM unnest(originals) AS o(id), LATERAL entry_correction_chain(ws, o.id) h;
    SELECT array_agg(m.id) INTO heads FROM unnest(members) AS m(id)
     WHERE NOT EXISTS (SELECT 1 FROM entry_links n WHERE n.workspace_id = ws AND n.original_entry_id = m.id AND n.link_type = 'CORRECTION');
    IF heads IS NULL THEN
      RETURN;
    END IF;
    -- the heads guard their chains' totals: writers of one chain run one after another
    PERFORM 1 FROM entries WHERE workspace_id = ws AND id = ANY (heads) ORDER BY id FOR UPDATE;
    SELECT array_agg(h.id), array_agg(c.id) INTO ch_head, ch_id FROM unnest(heads) AS h(id), LATERAL entry_correction_chain(ws, h.id) c;
    SELECT array_agg(ch.head), array_agg(l.link_type), array_agg(l.derived_entry_id) INTO dv_head, dv_type, dv_start
      FROM unnest(ch_head, ch_id) AS ch(head, id)
      JOIN entry_links l ON l.workspace_id = ws AND l.original_entry_id = ch.id AND l.link_type IN ('REFUND', 'REIMBURSEMENT');
    SELECT array_agg(x.head), array_agg(x.kind), array_agg(d.id) INTO d_head, d_type, d_id
      FROM unnest(dv_head, dv_type, dv_start) AS x(head, kind, start), LATERAL entry_correction_chain(ws, x.start) d;
    RETURN QUERY
      WITH derived AS (
        SELECT DISTINCT x.head, x.kind, x.id FROM unnest(d_head, d_type, d_id) AS x(head, kind, id)
      )
      SELECT dv.head, dv.kind,
             COALESCE(SUM(de.amount_cents) FILTER (WHERE de.entry_status NOT IN ('VOIDED', 'CANCELLED', 'REJECTED')), 0),
             h.amount_cents
        FROM derived dv
        JOIN entries de ON de.workspace_id = ws AND de.id = dv.id
        JOIN entries h ON h.workspace_id = ws AND h.id = dv.head
       GROUP BY dv.head, dv.kind, h.amount_cents;
  END $$;

  CREATE OR REPLACE FUNCTION entry_caps_enforce(ws int, entry_id bigint) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    v record;
  BEGIN
    SELECT * INTO v FROM entry_cap_totals(ws, ARRAY[entry_id]) t WHERE t.live_cents > t.amount_cents LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'live % entries of entry % sum to %, above its amount %', v.link_type, v.head_entry_id, v.live_cents, v.amount_cents
        USING ERRCODE = 'check_violation', CONSTRAINT = 'entry_caps';
    END IF;
  END $$;

  CREATE OR REPLACE FUNCTION entries_caps_check() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM entry_caps_enforce(NEW.workspace_id, NEW.id);
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION entry_links_caps_check() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM entry_caps_enforce(NEW.workspace_id, NEW.derived_entry_id);
    RETURN NULL;
  END $$;
`;

// the one-argument forms of 0012 and 0021, which nothing calls any more
const DEAD = `
  DROP FUNCTION IF EXISTS entry_caps_enforce(bigint), entry_cap_totals(bigint[]), entry_correction_chain(bigint),
                          entry_tags_rerank(bigint[]);
`;

export const m0048: Migration = {
  name: '0048-citus-routable-books',
  up: async (db: Sequelize) => {
    await db.query(BOOKS + TRIGGERS + TAGS + CAPS + DEAD);
    // a database distributed by 0049 before this ran: these SQL functions become PL/pgSQL as 0049 made the others
    await plpgsqlOnCitus(db);
  },
  down: async (db: Sequelize) => {
    // the functions of this migration stay (same results on plain PostgreSQL); the code before it asks for the caps
    // by entry ids alone: that form again, over the workspace form
    await db.query(`
      CREATE OR REPLACE FUNCTION entry_cap_totals(ids bigint[])
        RETURNS TABLE (head_entry_id bigint, link_type text, live_cents numeric, amount_cents bigint)
        LANGUAGE sql VOLATILE AS $$
        SELECT t.* FROM (SELECT DISTINCT workspace_id FROM entries WHERE id = ANY (ids) ORDER BY 1) w,
               LATERAL entry_cap_totals(w.workspace_id, ids) t
      $$;
    `);
  },
};
