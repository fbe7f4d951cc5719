-- The SQL functions and triggers of the service as the migrations (server/db/migrations) leave them.
-- Generated: npm run db:definitions. Read-only: change them by a new migration, then regenerate.

-- 26 functions

-- bank_lines_match_row()
CREATE OR REPLACE FUNCTION public.bank_lines_match_row()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      PERFORM bank_matches_changed(ARRAY[CASE WHEN TG_OP = 'DELETE' THEN OLD.match_id ELSE NEW.match_id END]);
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
      WITH taken AS (DELETE FROM bank_match_checks RETURNING match_ids)
      SELECT array_agg(DISTINCT m) INTO ids FROM taken CROSS JOIN LATERAL unnest(taken.match_ids) AS m;
      IF ids IS NOT NULL THEN
        PERFORM bank_matches_enforce(ids);
      END IF;
      RETURN NULL;
    END $function$;

-- bank_match_enforce(m uuid)
CREATE OR REPLACE FUNCTION public.bank_match_enforce(m uuid)
 RETURNS void
 LANGUAGE sql
AS $function$ SELECT bank_matches_enforce(ARRAY[m]) $function$;

-- bank_match_guard()
CREATE OR REPLACE FUNCTION public.bank_match_guard()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      IF EXISTS (SELECT 1 FROM bank_match_entries WHERE entry_id = NEW.id) THEN
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
        PERFORM bank_matches_changed(ARRAY(SELECT n.match_id FROM new_rows n WHERE n.match_id IS NOT NULL));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM bank_matches_changed(ARRAY(SELECT o.match_id FROM old_rows o WHERE o.match_id IS NOT NULL));
      ELSE
        PERFORM bank_matches_changed(ARRAY(
          SELECT n.match_id FROM new_rows n WHERE n.match_id IS NOT NULL
          UNION ALL SELECT o.match_id FROM old_rows o WHERE o.match_id IS NOT NULL));
      END IF;
      RETURN NULL;
    END $function$;

-- bank_match_state(ids uuid[])
CREATE OR REPLACE FUNCTION public.bank_match_state(ids uuid[])
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

-- bank_matches_changed(ids uuid[])
CREATE OR REPLACE FUNCTION public.bank_matches_changed(ids uuid[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    BEGIN
      IF cardinality(ids) > 0 THEN
        INSERT INTO bank_match_checks (match_ids) VALUES (ids);
      END IF;
    END $function$;

-- bank_matches_enforce(ids uuid[])
CREATE OR REPLACE FUNCTION public.bank_matches_enforce(ids uuid[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
    END $function$;

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
      PERFORM entry_caps_enforce(NEW.id);
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
      PERFORM bank_match_enforce(me.match_id) FROM bank_match_entries me WHERE me.entry_id = NEW.id;
      RETURN NULL;
    END $function$;

-- entry_cap_totals(ids bigint[])
CREATE OR REPLACE FUNCTION public.entry_cap_totals(ids bigint[])
 RETURNS TABLE(head_entry_id bigint, link_type text, live_cents numeric, amount_cents bigint)
 LANGUAGE plpgsql
AS $function$
    DECLARE
      heads bigint[];
    BEGIN
      WITH touched AS (
        SELECT DISTINCT c.id FROM unnest(ids) AS i(id), LATERAL entry_correction_chain(i.id) c
      ), originals AS (
        SELECT id FROM touched
        UNION
        SELECT l.original_entry_id FROM entry_links l JOIN touched t ON l.derived_entry_id = t.id
         WHERE l.link_type IN ('REFUND', 'REIMBURSEMENT')
      )
      SELECT array_agg(DISTINCT h.id) INTO heads
        FROM originals o, LATERAL entry_correction_chain(o.id) h
       WHERE NOT EXISTS (SELECT 1 FROM entry_links n WHERE n.original_entry_id = h.id AND n.link_type = 'CORRECTION');
      IF heads IS NULL THEN
        RETURN;
      END IF;
      -- the heads guard their chains' totals: writers of one chain run one after another
      PERFORM 1 FROM entries WHERE id = ANY (heads) ORDER BY id FOR UPDATE;
      RETURN QUERY
        WITH chain AS (
          SELECT h.id AS head, c.id FROM unnest(heads) AS h(id), LATERAL entry_correction_chain(h.id) c
        ), derived AS (
          SELECT DISTINCT ch.head, l.link_type, d.id
            FROM chain ch
            JOIN entry_links l ON l.original_entry_id = ch.id AND l.link_type IN ('REFUND', 'REIMBURSEMENT'),
            LATERAL entry_correction_chain(l.derived_entry_id) d
        )
        SELECT dv.head, dv.link_type,
               COALESCE(SUM(de.amount_cents) FILTER (WHERE de.entry_status NOT IN ('VOIDED', 'CANCELLED', 'REJECTED')), 0),
               h.amount_cents
          FROM derived dv
          JOIN entries de ON de.id = dv.id
          JOIN entries h ON h.id = dv.head
         GROUP BY dv.head, dv.link_type, h.amount_cents;
    END $function$;

-- entry_caps_enforce(entry_id bigint)
CREATE OR REPLACE FUNCTION public.entry_caps_enforce(entry_id bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    DECLARE
      v record;
    BEGIN
      SELECT * INTO v FROM entry_cap_totals(ARRAY[entry_id]) t WHERE t.live_cents > t.amount_cents LIMIT 1;
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

-- entry_correction_chain(e bigint)
CREATE OR REPLACE FUNCTION public.entry_correction_chain(e bigint)
 RETURNS TABLE(id bigint)
 LANGUAGE sql
 STABLE
AS $function$
      WITH RECURSIVE up(id) AS (
        SELECT e
        UNION
        SELECT l.original_entry_id FROM entry_links l JOIN up ON l.derived_entry_id = up.id WHERE l.link_type = 'CORRECTION'
      ), down(id) AS (
        SELECT id FROM up
        UNION
        SELECT l.derived_entry_id FROM entry_links l JOIN down ON l.original_entry_id = down.id WHERE l.link_type = 'CORRECTION'
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
      PERFORM entry_caps_enforce(NEW.derived_entry_id);
      RETURN NULL;
    END $function$;

-- entry_tags_rerank(entry_ids bigint[])
CREATE OR REPLACE FUNCTION public.entry_tags_rerank(entry_ids bigint[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    BEGIN
      -- the UPDATE only when a rank is stale: an UPDATE of no rows still fires the statement triggers
      PERFORM 1
         FROM (SELECT tag_rank, tag_count, row_number() OVER w AS fresh_rank, count(*) OVER w AS fresh_count
                 FROM entry_tags
                WHERE entry_id = ANY (entry_ids)
               WINDOW w AS (PARTITION BY entry_id ORDER BY tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) r
        WHERE (r.tag_rank, r.tag_count) IS DISTINCT FROM (r.fresh_rank::integer, r.fresh_count::integer)
        LIMIT 1;
      IF NOT FOUND THEN
        RETURN;
      END IF;
      UPDATE entry_tags et
         SET tag_rank = r.tag_rank, tag_count = r.tag_count
        FROM (SELECT entry_id, tag_id, row_number() OVER w AS tag_rank, count(*) OVER w AS tag_count
                FROM entry_tags
               WHERE entry_id = ANY (entry_ids)
              WINDOW w AS (PARTITION BY entry_id ORDER BY tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) r
       WHERE et.entry_id = r.entry_id AND et.tag_id = r.tag_id
         AND (et.tag_rank, et.tag_count) IS DISTINCT FROM (r.tag_rank::integer, r.tag_count::integer);
    END $function$;

-- entry_tags_rerank_changed()
CREATE OR REPLACE FUNCTION public.entry_tags_rerank_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM entry_tags_rerank(ARRAY(SELECT DISTINCT entry_id FROM new_rows));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM entry_tags_rerank(ARRAY(SELECT DISTINCT entry_id FROM old_rows));
      ELSIF pg_trigger_depth() = 1 THEN -- an UPDATE, but not the re-ranking's own
        PERFORM entry_tags_rerank(ARRAY(SELECT entry_id FROM old_rows UNION SELECT entry_id FROM new_rows));
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

-- 36 triggers

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
