import { sql, type Migration } from './types.js';

/**
 * The ledger core's rules that PostgreSQL holds itself (CONTRACT §5 invariant, §4 tag archive,
 * §8 CANCELLED reviews).
 *
 * Caps: for every entry, its live (not VOIDED, CANCELLED or REJECTED) refunds, followed through
 * corrections, sum to at most its amount, and so do its reimbursements. A correction chain
 * (original → replacement → …) counts as one entry whose amount is its latest member's (the
 * head); a refund's replacement stays in its original's total. `entry_cap_totals` computes
 * the totals of the chains an entry change touches after locking their heads, so the ledger
 * code asks it before answering and a deferred constraint trigger asks it again at commit:
 * whoever writes the rows, a commit that breaks a cap is refused.
 */
export const m0012: Migration = {
  name: '0012-ledger-core',
  up: sql(`
    CREATE FUNCTION entry_correction_chain(e bigint) RETURNS TABLE (id bigint) LANGUAGE sql STABLE AS $$
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
    $$;

    CREATE FUNCTION entry_cap_totals(ids bigint[])
      RETURNS TABLE (head_entry_id bigint, link_type text, live_cents numeric, amount_cents bigint)
      LANGUAGE plpgsql VOLATILE AS $$
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
    END $$;

    CREATE FUNCTION entry_caps_enforce(entry_id bigint) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      v record;
    BEGIN
      SELECT * INTO v FROM entry_cap_totals(ARRAY[entry_id]) t WHERE t.live_cents > t.amount_cents LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'live % entries of entry % sum to %, above its amount %', v.link_type, v.head_entry_id, v.live_cents, v.amount_cents
          USING ERRCODE = 'check_violation', CONSTRAINT = 'entry_caps';
      END IF;
    END $$;

    CREATE FUNCTION entries_caps_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM entry_caps_enforce(NEW.id);
      RETURN NULL;
    END $$;
    CREATE FUNCTION entry_links_caps_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM entry_caps_enforce(NEW.derived_entry_id);
      RETURN NULL;
    END $$;

    -- an amount change, or an entry coming back to life (REJECTED → PENDING), can raise a total
    CREATE CONSTRAINT TRIGGER entries_caps AFTER UPDATE OF amount_cents, entry_status ON entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      WHEN (OLD.amount_cents IS DISTINCT FROM NEW.amount_cents
            OR (OLD.entry_status IN ('VOIDED', 'CANCELLED', 'REJECTED') AND NEW.entry_status NOT IN ('VOIDED', 'CANCELLED', 'REJECTED')))
      EXECUTE FUNCTION entries_caps_check();
    CREATE CONSTRAINT TRIGGER entry_links_caps AFTER INSERT OR UPDATE ON entry_links
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      EXECUTE FUNCTION entry_links_caps_check();

    -- the chain walks go both ways
    CREATE INDEX entry_links_derived_type_idx ON entry_links (derived_entry_id, link_type);

    -- §4: a deleted tag is archived; its name is free again
    ALTER TABLE tags ADD COLUMN archived_at timestamptz;
    DROP INDEX tags_workspace_name_key;
    CREATE UNIQUE INDEX tags_workspace_name_key ON tags (workspace_id, lower(name)) WHERE archived_at IS NULL;

    -- §8: reviews of an entry that is voided, cancelled, corrected or fully refunded are CANCELLED
    ALTER TABLE accounting_reviews DROP CONSTRAINT accounting_reviews_status_check;
    ALTER TABLE accounting_reviews ADD CONSTRAINT accounting_reviews_status_check
      CHECK (status IN ('QUEUED', 'IN_REVIEW', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED', 'CANCELLED'));
    ALTER TABLE accounting_reviews DROP CONSTRAINT accounting_reviews_check;
    ALTER TABLE accounting_reviews ADD CONSTRAINT accounting_reviews_check
      CHECK ((status IN ('APPROVED', 'REJECTED', 'CHANGES_REQUESTED', 'CANCELLED')) = (decided_at IS NOT NULL));
  `),
  down: sql(`
    ALTER TABLE accounting_reviews DROP CONSTRAINT accounting_reviews_check;
    ALTER TABLE accounting_reviews DROP CONSTRAINT accounting_reviews_status_check;
    DELETE FROM accounting_reviews WHERE status = 'CANCELLED';
    ALTER TABLE accounting_reviews ADD CONSTRAINT accounting_reviews_status_check
      CHECK (status IN ('QUEUED', 'IN_REVIEW', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED'));
    ALTER TABLE accounting_reviews ADD CONSTRAINT accounting_reviews_check
      CHECK ((status IN ('APPROVED', 'REJECTED', 'CHANGES_REQUESTED')) = (decided_at IS NOT NULL));
    DROP INDEX tags_workspace_name_key;
    DELETE FROM entry_tags WHERE tag_id IN (SELECT id FROM tags WHERE archived_at IS NOT NULL);
    DELETE FROM tags WHERE archived_at IS NOT NULL;
    ALTER TABLE tags DROP COLUMN archived_at;
    CREATE UNIQUE INDEX tags_workspace_name_key ON tags (workspace_id, lower(name));
    DROP INDEX entry_links_derived_type_idx;
    DROP TRIGGER entry_links_caps ON entry_links;
    DROP TRIGGER entries_caps ON entries;
    DROP FUNCTION entry_links_caps_check();
    DROP FUNCTION entries_caps_check();
    DROP FUNCTION entry_caps_enforce(bigint);
    DROP FUNCTION entry_cap_totals(bigint[]);
    DROP FUNCTION entry_correction_chain(bigint);
  `),
};
