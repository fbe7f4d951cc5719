-- The SQL functions and triggers of the service as the migrations (server/db/migrations) leave them.
-- Generated: npm run db:definitions. Read-only: change them by a new migration, then regenerate.

-- 42 functions

-- bank_lines_match_row()
CREATE OR REPLACE FUNCTION public.bank_lines_match_row()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    IF TG_OP = 'DELETE' THEN
      PERFORM bank_matches_changed(OLD.workspace_id, ARRAY[OLD.match_id]);
    ELSE
      PERFORM bank_matches_changed(NEW.workspace_id, ARRAY[NEW.match_id]);
    END IF;
    RETURN NULL;
  END $function$;

-- bank_match_checks_enforce()
CREATE OR REPLACE FUNCTION public.bank_match_checks_enforce()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  DECLARE
    ids uuid[];
  BEGIN
    WITH taken AS (DELETE FROM bank_match_checks WHERE workspace_id = NEW.workspace_id RETURNING match_ids)
    SELECT array_agg(DISTINCT m) INTO ids FROM taken CROSS JOIN LATERAL unnest(taken.match_ids) AS m;
    IF ids IS NOT NULL THEN
      PERFORM bank_matches_enforce(NEW.workspace_id, ids);
    END IF;
    RETURN NULL;
  END $function$;

-- bank_match_enforce(ws integer, m uuid)
CREATE OR REPLACE FUNCTION public.bank_match_enforce(ws integer, m uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
  BEGIN
    PERFORM bank_matches_enforce(ws, ARRAY[m]);
  END $function$;

-- bank_match_guard()
CREATE OR REPLACE FUNCTION public.bank_match_guard()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    IF EXISTS (SELECT 1 FROM bank_match_entries WHERE workspace_id = NEW.workspace_id AND entry_id = NEW.id) THEN
      RAISE EXCEPTION 'Entry % is in bank match; delete the match to unreconcile it', NEW.id USING ERRCODE = '23P01', DETAIL = 'The entry is reconciled by a bank match', CONSTRAINT = 'entries_bank_match_guard';
    END IF;
    RETURN NEW;
  END $function$;

-- bank_match_rows_changed()
CREATE OR REPLACE FUNCTION public.bank_match_rows_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
  END $function$;

-- bank_match_state(ws integer, ids uuid[])
CREATE OR REPLACE FUNCTION public.bank_match_state(ws integer, ids uuid[])
 RETURNS TABLE(checked_match uuid, account_currency text, lines_cents numeric, entries_cents numeric, entries_ok boolean, balanced boolean)
 LANGUAGE plpgsql
 STABLE
 SET enable_seqscan TO 'off'
AS $function$
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
  END $function$;

-- bank_matches_changed(ws integer, ids uuid[])
CREATE OR REPLACE FUNCTION public.bank_matches_changed(ws integer, ids uuid[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
  BEGIN
    IF cardinality(ids) > 0 THEN
      INSERT INTO bank_match_checks (workspace_id, match_ids) VALUES (ws, ids);
    END IF;
  END $function$;

-- bank_matches_enforce(ws integer, ids uuid[])
CREATE OR REPLACE FUNCTION public.bank_matches_enforce(ws integer, ids uuid[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
  DECLARE
    v record;
  BEGIN
    SELECT * INTO v FROM bank_match_state(ws, ids) s WHERE NOT s.balanced LIMIT 1;
    IF NOT FOUND THEN
      RETURN; -- balanced, or gone (dissolved or deleted)
    END IF;
    IF v.lines_cents <> v.entries_cents THEN
      RAISE EXCEPTION 'bank match %: its lines sum to %, its entries (INCOME +, EXPENSE −) to %', v.checked_match, v.lines_cents, v.entries_cents
        USING ERRCODE = 'check_violation', CONSTRAINT = 'bank_match_balance';
    END IF;
    RAISE EXCEPTION 'bank match %: an entry is VOIDED, CANCELLED or REJECTED, not in %, or not reconciled', v.checked_match, v.account_currency
      USING ERRCODE = 'check_violation', CONSTRAINT = 'bank_match_balance';
  END $function$;

-- books_currency_exponent(c text)
CREATE OR REPLACE FUNCTION public.books_currency_exponent(c text)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
    SELECT CASE rtrim(c) WHEN 'BIF' THEN 0 WHEN 'CLP' THEN 0 WHEN 'DJF' THEN 0 WHEN 'GNF' THEN 0 WHEN 'ISK' THEN 0 WHEN 'JPY' THEN 0 WHEN 'KMF' THEN 0 WHEN 'KRW' THEN 0 WHEN 'PYG' THEN 0 WHEN 'RWF' THEN 0 WHEN 'UGX' THEN 0 WHEN 'UYI' THEN 0 WHEN 'VND' THEN 0 WHEN 'VUV' THEN 0 WHEN 'XAF' THEN 0 WHEN 'XOF' THEN 0 WHEN 'XPF' THEN 0 WHEN 'BHD' THEN 3 WHEN 'IQD' THEN 3 WHEN 'JOD' THEN 3 WHEN 'KWD' THEN 3 WHEN 'LYD' THEN 3 WHEN 'OMR' THEN 3 WHEN 'TND' THEN 3 WHEN 'CLF' THEN 4 WHEN 'UYW' THEN 4 ELSE 2 END
  $function$;

-- books_ensure_roles(ws integer)
CREATE OR REPLACE FUNCTION public.books_ensure_roles(ws integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
  DECLARE
    r record;
    try_code text;
    n int;
    cat uuid;
  BEGIN
    IF (SELECT count(*) FROM ledger_roles l WHERE l.workspace_id = ws) = 7 THEN
      RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(4245, ws);
    FOR r IN
      SELECT v.role, v.code, v.name, v.account_type
        FROM (VALUES ('BANK', '1000', 'Bank', 'ASSET', 1), ('RECEIVABLE', '1200', 'Accounts receivable', 'ASSET', 2),
                     ('PAYABLE', '2000', 'Accounts payable', 'LIABILITY', 3),
                     ('OPENING_BALANCE', '3000', 'Opening balance equity', 'EQUITY', 4),
                     ('RETAINED_EARNINGS', '3100', 'Retained earnings', 'EQUITY', 5),
                     ('REVENUE', '4000', 'Revenue', 'REVENUE', 6), ('EXPENSE', '6000', 'Expenses', 'EXPENSE', 7))
             AS v(role, code, name, account_type, ord)
       WHERE NOT EXISTS (SELECT 1 FROM ledger_roles l WHERE l.workspace_id = ws AND l.role = v.role)
       ORDER BY v.ord
    LOOP
      n := 0;
      try_code := r.code;
      WHILE EXISTS (SELECT 1 FROM accounting_categories c WHERE c.workspace_id = ws AND c.code = try_code) LOOP
        n := n + 1;
        try_code := r.code || '-' || n;
      END LOOP;
      INSERT INTO accounting_categories (workspace_id, code, name, account_type, is_active)
      VALUES (ws, try_code, r.name, r.account_type, true) RETURNING id INTO cat;
      INSERT INTO ledger_roles (workspace_id, role, category_id) VALUES (ws, r.role, cat);
    END LOOP;
  END $function$;

-- books_expected_entries(ws integer, ids bigint[])
CREATE OR REPLACE FUNCTION public.books_expected_entries(ws integer, ids bigint[])
 RETURNS TABLE(entry_id bigint, kind text, txn_date date, bank_match_id uuid, bank_account_id uuid, line_no integer, category_id uuid, debit_cents bigint, credit_cents bigint)
 LANGUAGE sql
 STABLE
AS $function$
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
             (SELECT min(c.day) FROM (SELECT b.last AS day UNION ALL
                                      SELECT p.end_date + 1 FROM accounting_periods p
                                       WHERE p.workspace_id = ws AND p.status = 'CLOSED' AND p.end_date >= b.last) c
               WHERE NOT EXISTS (SELECT 1 FROM accounting_periods q
                                  WHERE q.workspace_id = ws AND q.status = 'CLOSED' AND q.start_date <= c.day AND q.end_date >= c.day)) AS day
        FROM e
        JOIN bank_match_entries me ON me.entry_id = e.id AND me.workspace_id = ws
        JOIN bank_matches m ON m.id = me.match_id AND m.workspace_id = ws
        JOIN bank_accounts ba ON ba.id = m.bank_account_id AND ba.workspace_id = ws
        CROSS JOIN LATERAL (SELECT max(l.booking_date) AS last FROM bank_lines l WHERE l.workspace_id = ws AND l.match_id = me.match_id) b
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
  $function$;

-- books_expected_openings(ws integer, ids uuid[])
CREATE OR REPLACE FUNCTION public.books_expected_openings(ws integer, ids uuid[])
 RETURNS TABLE(bank_account_id uuid, txn_date date, line_no integer, category_id uuid, debit_cents bigint, credit_cents bigint)
 LANGUAGE sql
 STABLE
AS $function$
    WITH a AS (
      SELECT a.id, a.opening_date, a.opening_balance_cents AS bal,
             COALESCE(a.ledger_category_id, (SELECT r.category_id FROM ledger_roles r WHERE r.workspace_id = ws AND r.role = 'BANK')) AS account,
             (SELECT r.category_id FROM ledger_roles r WHERE r.workspace_id = ws AND r.role = 'OPENING_BALANCE') AS equity
        FROM bank_accounts a
       WHERE a.workspace_id = ws AND a.id = ANY(ids) AND a.opening_balance_cents <> 0 AND a.opening_date IS NOT NULL
    )
    SELECT a.id, a.opening_date, 1, CASE WHEN a.bal > 0 THEN a.account ELSE a.equity END, abs(a.bal), 0::bigint FROM a
    UNION ALL
    SELECT a.id, a.opening_date, 2, CASE WHEN a.bal > 0 THEN a.equity ELSE a.account END, 0::bigint, abs(a.bal) FROM a
  $function$;

-- books_expected_transactions(ws integer, ids bigint[])
CREATE OR REPLACE FUNCTION public.books_expected_transactions(ws integer, ids bigint[])
 RETURNS TABLE(entry_id bigint, kind text, txn_date date, bank_match_id uuid, bank_account_id uuid, sig jsonb)
 LANGUAGE sql
 STABLE
AS $function$
    SELECT x.entry_id, x.kind, x.txn_date, x.bank_match_id, x.bank_account_id,
           jsonb_agg(jsonb_build_array(x.category_id, x.debit_cents, x.credit_cents) ORDER BY x.line_no)
      FROM books_expected_entries(ws, ids) x GROUP BY 1, 2, 3, 4, 5
  $function$;

-- books_live_entries(ws integer, ids bigint[])
CREATE OR REPLACE FUNCTION public.books_live_entries(ws integer, ids bigint[])
 RETURNS TABLE(id bigint, entry_id bigint, kind text, txn_date date, bank_match_id uuid, bank_account_id uuid, sig jsonb)
 LANGUAGE sql
 STABLE
AS $function$
    SELECT t.id, t.entry_id, t.kind, t.txn_date, t.bank_match_id, t.bank_account_id,
           (SELECT jsonb_agg(jsonb_build_array(l.category_id, l.debit_cents, l.credit_cents) ORDER BY l.line_no)
              FROM journal_lines l WHERE l.workspace_id = ws AND l.transaction_id = t.id)
      FROM journal_transactions t
     WHERE t.workspace_id = ws AND t.entry_id = ANY(ids) AND t.kind IN ('ENTRY', 'SETTLEMENT')
       AND NOT EXISTS (SELECT 1 FROM journal_transactions r WHERE r.workspace_id = ws AND r.reverses = t.id)
  $function$;

-- books_open_day(ws integer, day date)
CREATE OR REPLACE FUNCTION public.books_open_day(ws integer, day date)
 RETURNS date
 LANGUAGE plpgsql
 STABLE
AS $function$
  DECLARE
    d date := day;
    last_day date;
  BEGIN
    LOOP
      SELECT p.end_date INTO last_day FROM accounting_periods p
       WHERE p.workspace_id = ws AND p.status = 'CLOSED' AND p.start_date <= d AND p.end_date >= d LIMIT 1;
      EXIT WHEN last_day IS NULL;
      d := last_day + 1;
    END LOOP;
    RETURN d;
  END $function$;

-- books_post_bank_openings(ws integer, ids uuid[])
CREATE OR REPLACE FUNCTION public.books_post_bank_openings(ws integer, ids uuid[])
 RETURNS bigint[]
 LANGUAGE plpgsql
AS $function$
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
  END $function$;

-- books_post_entries(ws integer, ids bigint[])
CREATE OR REPLACE FUNCTION public.books_post_entries(ws integer, ids bigint[])
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
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
  END $function$;

-- books_sig_mapped(sig jsonb, m jsonb)
CREATE OR REPLACE FUNCTION public.books_sig_mapped(sig jsonb, m jsonb)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
AS $function$
      SELECT CASE WHEN m IS NULL OR sig IS NULL THEN sig ELSE
        (SELECT jsonb_agg(jsonb_build_array(COALESCE(m -> (e ->> 0), e -> 0), e -> 1, e -> 2) ORDER BY o)
           FROM jsonb_array_elements(sig) WITH ORDINALITY AS x(e, o)) END
    $function$;

-- closed_period_name(ws integer, day date)
CREATE OR REPLACE FUNCTION public.closed_period_name(ws integer, day date)
 RETURNS text
 LANGUAGE sql
 STABLE
AS $function$
      SELECT name FROM accounting_periods
       WHERE workspace_id = ws AND status = 'CLOSED' AND start_date <= day AND end_date >= day
       ORDER BY start_date LIMIT 1
    $function$;

-- entries_caps_check()
CREATE OR REPLACE FUNCTION public.entries_caps_check()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    PERFORM entry_caps_enforce(NEW.workspace_id, NEW.id);
    RETURN NULL;
  END $function$;

-- entries_closed_period_row()
CREATE OR REPLACE FUNCTION public.entries_closed_period_row()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
    END $function$;

-- entries_closed_period_rows()
CREATE OR REPLACE FUNCTION public.entries_closed_period_rows()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
    END $function$;

-- entries_match_check()
CREATE OR REPLACE FUNCTION public.entries_match_check()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    PERFORM bank_match_enforce(NEW.workspace_id, me.match_id) FROM bank_match_entries me WHERE me.workspace_id = NEW.workspace_id AND me.entry_id = NEW.id;
    RETURN NULL;
  END $function$;

-- entry_cap_totals(ws integer, ids bigint[])
CREATE OR REPLACE FUNCTION public.entry_cap_totals(ws integer, ids bigint[])
 RETURNS TABLE(head_entry_id bigint, link_type text, live_cents numeric, amount_cents bigint)
 LANGUAGE plpgsql
AS $function$
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
  END $function$;

-- entry_caps_enforce(ws integer, entry_id bigint)
CREATE OR REPLACE FUNCTION public.entry_caps_enforce(ws integer, entry_id bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
  DECLARE
    v record;
  BEGIN
    SELECT * INTO v FROM entry_cap_totals(ws, ARRAY[entry_id]) t WHERE t.live_cents > t.amount_cents LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'live % entries of entry % sum to %, above its amount %', v.link_type, v.head_entry_id, v.live_cents, v.amount_cents
        USING ERRCODE = 'check_violation', CONSTRAINT = 'entry_caps';
    END IF;
  END $function$;

-- entry_closed_period_refuse(entry_id bigint, day date, closed text)
CREATE OR REPLACE FUNCTION public.entry_closed_period_refuse(entry_id bigint, day date, closed text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    BEGIN
      RAISE EXCEPTION 'entry % is dated % in the closed accounting period "%": its totals cannot move', entry_id, day, closed
        USING ERRCODE = 'check_violation', CONSTRAINT = 'entry_closed_period';
    END $function$;

-- entry_correction_chain(ws integer, e bigint)
CREATE OR REPLACE FUNCTION public.entry_correction_chain(ws integer, e bigint)
 RETURNS TABLE(id bigint)
 LANGUAGE sql
 STABLE
AS $function$
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
  $function$;

-- entry_events_append_only()
CREATE OR REPLACE FUNCTION public.entry_events_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      RAISE EXCEPTION 'entry_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $function$;

-- entry_links_caps_check()
CREATE OR REPLACE FUNCTION public.entry_links_caps_check()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    PERFORM entry_caps_enforce(NEW.workspace_id, NEW.derived_entry_id);
    RETURN NULL;
  END $function$;

-- entry_tags_rerank(ws integer, entry_ids bigint[])
CREATE OR REPLACE FUNCTION public.entry_tags_rerank(ws integer, entry_ids bigint[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
  END $function$;

-- entry_tags_rerank_changed()
CREATE OR REPLACE FUNCTION public.entry_tags_rerank_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
  END $function$;

-- entry_write_closed_period(ws integer, day date)
CREATE OR REPLACE FUNCTION public.entry_write_closed_period(ws integer, day date)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
    DECLARE
      closed text;
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(4201, ws);
      SELECT closed_period_name(ws, day) INTO closed;
      RETURN closed;
    END $function$;

-- fx_base_cents(amount bigint, rate numeric, from_exp integer, to_exp integer)
CREATE OR REPLACE FUNCTION public.fx_base_cents(amount bigint, rate numeric, from_exp integer, to_exp integer)
 RETURNS bigint
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
    DECLARE
      n numeric := amount::numeric * trunc(rate * 10000000000) * trunc(10::numeric ^ to_exp);
      d numeric := trunc(10::numeric ^ (10 + from_exp));
      q numeric := div(n, d);
      r numeric := mod(n, d);
    BEGIN
      IF 2 * r > d OR (2 * r = d AND mod(q, 2) = 1) THEN
        q := q + 1;
      END IF;
      IF q > 1000000000000000 THEN
        RAISE EXCEPTION 'the amount in the base currency (% minor units) exceeds 10^15', q USING ERRCODE = '22003';
      END IF;
      RETURN q;
    END $function$;

-- journal_append_only()
CREATE OR REPLACE FUNCTION public.journal_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    RAISE EXCEPTION 'the journal is append-only: % on % refused', TG_OP, TG_TABLE_NAME
      USING ERRCODE = 'check_violation', CONSTRAINT = 'journal_append_only';
  END $function$;

-- journal_balance_check()
CREATE OR REPLACE FUNCTION public.journal_balance_check()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
  END $function$;

-- journal_closed_period_rows()
CREATE OR REPLACE FUNCTION public.journal_closed_period_rows()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  DECLARE
    hit record;
  BEGIN
    PERFORM pg_advisory_xact_lock_shared(4201, ws) FROM (SELECT DISTINCT workspace_id AS ws FROM new_rows ORDER BY 1) w;
    SELECT r.id, r.txn_date, c.name INTO hit
      FROM new_rows r, LATERAL (SELECT closed_period_name(r.workspace_id, r.txn_date) AS name) c
     WHERE c.name IS NOT NULL LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'journal transaction % is dated % in the closed accounting period "%"', hit.id, hit.txn_date, hit.name
        USING ERRCODE = 'check_violation', CONSTRAINT = 'journal_closed_period';
    END IF;
    RETURN NULL;
  END $function$;

-- journal_lines_balances()
CREATE OR REPLACE FUNCTION public.journal_lines_balances()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      PERFORM pg_advisory_xact_lock(4246, NEW.workspace_id);
      INSERT INTO ledger_balances AS b (workspace_id, category_id, month, debit_cents, credit_cents)
      VALUES (NEW.workspace_id, NEW.category_id, date_trunc('month', NEW.txn_date)::date, NEW.debit_cents, NEW.credit_cents)
      ON CONFLICT (workspace_id, category_id, month)
        DO UPDATE SET debit_cents = b.debit_cents + EXCLUDED.debit_cents, credit_cents = b.credit_cents + EXCLUDED.credit_cents;
      INSERT INTO ledger_day_balances AS b (workspace_id, category_id, day, debit_cents, credit_cents)
      VALUES (NEW.workspace_id, NEW.category_id, NEW.txn_date, NEW.debit_cents, NEW.credit_cents)
      ON CONFLICT (workspace_id, category_id, day)
        DO UPDATE SET debit_cents = b.debit_cents + EXCLUDED.debit_cents, credit_cents = b.credit_cents + EXCLUDED.credit_cents;
      RETURN NULL;
    END $function$;

-- ledger_role_remembered()
CREATE OR REPLACE FUNCTION public.ledger_role_remembered()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      INSERT INTO ledger_role_history (workspace_id, role, category_id) VALUES (NEW.workspace_id, NEW.role, NEW.category_id)
      ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $function$;

-- ledger_role_stays_active()
CREATE OR REPLACE FUNCTION public.ledger_role_stays_active()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    IF EXISTS (SELECT 1 FROM ledger_roles r WHERE r.workspace_id = NEW.workspace_id AND r.category_id = NEW.id) THEN
      RAISE EXCEPTION 'category % is the account of a ledger role: it cannot be deactivated', NEW.id
        USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_role_active';
    END IF;
    RETURN NEW;
  END $function$;

-- notify_auth_changed()
CREATE OR REPLACE FUNCTION public.notify_auth_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    DECLARE
      old_user text := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) ->> TG_ARGV[0] END;
      new_user text := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) ->> TG_ARGV[0] END;
    BEGIN
      IF old_user IS NOT NULL THEN PERFORM pg_notify('auth_changed', old_user); END IF;
      IF new_user IS NOT NULL AND new_user IS DISTINCT FROM old_user THEN PERFORM pg_notify('auth_changed', new_user); END IF;
      RETURN NULL;
    END $function$;

-- notify_entries_changed()
CREATE OR REPLACE FUNCTION public.notify_entries_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      PERFORM pg_notify('entries_changed', ws::text) FROM (SELECT DISTINCT workspace_id AS ws FROM changed) touched;
      RETURN NULL;
    END $function$;

-- notify_rules_changed()
CREATE OR REPLACE FUNCTION public.notify_rules_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      PERFORM pg_notify('rules_changed', ws::text) FROM (SELECT DISTINCT workspace_id AS ws FROM changed) touched;
      RETURN NULL;
    END $function$;

-- 47 triggers

CREATE TRIGGER accounting_categories_role_active BEFORE UPDATE OF is_active ON accounting_categories FOR EACH ROW WHEN (old.is_active AND NOT new.is_active) EXECUTE FUNCTION ledger_role_stays_active();
CREATE TRIGGER rules_categories_updated_notify AFTER UPDATE ON accounting_categories REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
CREATE TRIGGER bank_lines_match_delete AFTER DELETE ON bank_lines FOR EACH ROW WHEN (old.match_id IS NOT NULL) EXECUTE FUNCTION bank_lines_match_row();
CREATE TRIGGER bank_lines_match_insert AFTER INSERT ON bank_lines FOR EACH ROW WHEN (new.match_id IS NOT NULL) EXECUTE FUNCTION bank_lines_match_row();
CREATE TRIGGER bank_lines_match_update AFTER UPDATE ON bank_lines REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bank_match_rows_changed();
CREATE CONSTRAINT TRIGGER bank_match_balance AFTER INSERT ON bank_match_checks DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bank_match_checks_enforce();
CREATE TRIGGER bank_match_entries_delete AFTER DELETE ON bank_match_entries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bank_match_rows_changed();
CREATE TRIGGER bank_match_entries_insert AFTER INSERT ON bank_match_entries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bank_match_rows_changed();
CREATE TRIGGER bank_match_entries_update AFTER UPDATE ON bank_match_entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bank_match_rows_changed();
CREATE TRIGGER entries_bank_match_guard BEFORE UPDATE OF is_reconciled ON entries FOR EACH ROW WHEN (old.is_reconciled AND NOT new.is_reconciled) EXECUTE FUNCTION bank_match_guard();
CREATE CONSTRAINT TRIGGER entries_caps AFTER UPDATE OF amount_cents, entry_status ON entries DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (old.amount_cents IS DISTINCT FROM new.amount_cents OR (old.entry_status = ANY (ARRAY['VOIDED'::text, 'CANCELLED'::text, 'REJECTED'::text])) AND (new.entry_status <> ALL (ARRAY['VOIDED'::text, 'CANCELLED'::text, 'REJECTED'::text]))) EXECUTE FUNCTION entries_caps_check();
CREATE TRIGGER entries_closed_period_delete AFTER DELETE ON entries REFERENCING OLD TABLE AS gone_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_closed_period_rows();
CREATE TRIGGER entries_closed_period_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_closed_period_rows();
CREATE CONSTRAINT TRIGGER entries_closed_period_update AFTER UPDATE ON entries NOT DEFERRABLE INITIALLY IMMEDIATE FOR EACH ROW WHEN ((old.entry_status = ANY (ARRAY['PENDING'::text, 'UNDER_REVIEW'::text, 'COMPLETED'::text])) IS DISTINCT FROM (new.entry_status = ANY (ARRAY['PENDING'::text, 'UNDER_REVIEW'::text, 'COMPLETED'::text])) OR old.amount_cents IS DISTINCT FROM new.amount_cents OR old.base_currency IS DISTINCT FROM new.base_currency OR old.amount_base_cents IS DISTINCT FROM new.amount_base_cents OR old.entry_type IS DISTINCT FROM new.entry_type OR old.entry_date IS DISTINCT FROM new.entry_date OR old.project_id IS DISTINCT FROM new.project_id OR old.from_party_id IS DISTINCT FROM new.from_party_id OR old.to_party_id IS DISTINCT FROM new.to_party_id OR old.workspace_id IS DISTINCT FROM new.workspace_id) EXECUTE FUNCTION entries_closed_period_row();
CREATE TRIGGER entries_deleted_notify AFTER DELETE ON entries REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_entries_changed();
CREATE TRIGGER entries_inserted_notify AFTER INSERT ON entries REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_entries_changed();
CREATE CONSTRAINT TRIGGER entries_match_balance AFTER UPDATE ON entries DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (old.is_reconciled AND (old.amount_cents IS DISTINCT FROM new.amount_cents OR old.entry_type IS DISTINCT FROM new.entry_type OR old.base_currency IS DISTINCT FROM new.base_currency OR old.entry_status IS DISTINCT FROM new.entry_status)) EXECUTE FUNCTION entries_match_check();
CREATE TRIGGER entries_updated_notify AFTER UPDATE ON entries REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_entries_changed();
CREATE TRIGGER entry_events_no_truncate BEFORE TRUNCATE ON entry_events FOR EACH STATEMENT EXECUTE FUNCTION entry_events_append_only();
CREATE TRIGGER entry_events_no_update_delete BEFORE DELETE OR UPDATE ON entry_events FOR EACH ROW EXECUTE FUNCTION entry_events_append_only();
CREATE CONSTRAINT TRIGGER entry_links_caps AFTER INSERT OR UPDATE ON entry_links DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION entry_links_caps_check();
CREATE TRIGGER entry_tags_deleted_notify AFTER DELETE ON entry_tags REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_entries_changed();
CREATE TRIGGER entry_tags_inserted_notify AFTER INSERT ON entry_tags REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_entries_changed();
CREATE TRIGGER entry_tags_rank_after_delete AFTER DELETE ON entry_tags REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_tags_rerank_changed();
CREATE TRIGGER entry_tags_rank_after_insert AFTER INSERT ON entry_tags REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_tags_rerank_changed();
CREATE TRIGGER entry_tags_rank_after_update AFTER UPDATE ON entry_tags REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_tags_rerank_changed();
CREATE CONSTRAINT TRIGGER journal_balanced AFTER INSERT ON journal_lines DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_balance_check();
CREATE TRIGGER journal_lines_append_only BEFORE DELETE OR UPDATE ON journal_lines FOR EACH STATEMENT EXECUTE FUNCTION journal_append_only();
CREATE CONSTRAINT TRIGGER journal_lines_balances AFTER INSERT ON journal_lines DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_lines_balances();
CREATE TRIGGER journal_lines_no_truncate BEFORE TRUNCATE ON journal_lines FOR EACH STATEMENT EXECUTE FUNCTION journal_append_only();
CREATE TRIGGER journal_closed_period AFTER INSERT ON journal_transactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION journal_closed_period_rows();
CREATE TRIGGER journal_transactions_append_only BEFORE DELETE OR UPDATE ON journal_transactions FOR EACH STATEMENT EXECUTE FUNCTION journal_append_only();
CREATE TRIGGER journal_transactions_no_truncate BEFORE TRUNCATE ON journal_transactions FOR EACH STATEMENT EXECUTE FUNCTION journal_append_only();
CREATE TRIGGER ledger_balances_no_truncate BEFORE TRUNCATE ON ledger_balances FOR EACH STATEMENT EXECUTE FUNCTION journal_append_only();
CREATE TRIGGER ledger_day_balances_no_truncate BEFORE TRUNCATE ON ledger_day_balances FOR EACH STATEMENT EXECUTE FUNCTION journal_append_only();
CREATE TRIGGER ledger_roles_remembered AFTER INSERT OR UPDATE OF category_id ON ledger_roles FOR EACH ROW EXECUTE FUNCTION ledger_role_remembered();
CREATE TRIGGER rules_parties_updated_notify AFTER UPDATE ON parties REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
CREATE TRIGGER project_members_auth_changed AFTER INSERT OR DELETE OR UPDATE ON project_members FOR EACH ROW EXECUTE FUNCTION notify_auth_changed('user_id');
CREATE TRIGGER rules_projects_deleted_notify AFTER DELETE ON projects REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
CREATE TRIGGER rules_deleted_notify AFTER DELETE ON rules REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
CREATE TRIGGER rules_inserted_notify AFTER INSERT ON rules REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
CREATE TRIGGER rules_updated_notify AFTER UPDATE ON rules REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
CREATE TRIGGER sessions_auth_changed AFTER DELETE OR UPDATE ON sessions FOR EACH ROW EXECUTE FUNCTION notify_auth_changed('user_id');
CREATE TRIGGER rules_tags_deleted_notify AFTER DELETE ON tags REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
CREATE TRIGGER rules_tags_updated_notify AFTER UPDATE ON tags REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
CREATE TRIGGER users_auth_changed AFTER DELETE OR UPDATE ON users FOR EACH ROW EXECUTE FUNCTION notify_auth_changed('id');
CREATE TRIGGER workspace_members_auth_changed AFTER INSERT OR DELETE OR UPDATE ON workspace_members FOR EACH ROW EXECUTE FUNCTION notify_auth_changed('user_id');
