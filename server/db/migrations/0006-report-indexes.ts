import { sql, type Migration } from './types.js';

/**
 * What the reports (CONTRACT §11) need to answer in under 2 s on 1,000,000 entries:
 *
 * - entries_report_idx: the counted entries of a workspace by date, carrying every column a
 *   report groups or sums, so a date range reads a narrow index instead of the table.
 * - entry_tags.tag_rank / tag_count: the position of a tag among its entry's tags (ascending
 *   tag id, from 1) and how many tags the entry has. by-tag allocates an entry's amount with
 *   them (remainder cents to the lowest ranks). Ranking at read time is a window over every
 *   tag row of the workspace, which PostgreSQL cannot parallelise (≈ 2.3 s of CPU on 1.5 M
 *   tag rows here); kept by statement-level triggers, they turn by-tag into a parallel
 *   hash join. The triggers re-rank exactly the entries a statement touched, with the same
 *   row_number() window, so the columns cannot drift from the rows however tags are written
 *   (entry create/replace, ingest, cascades from a deleted tag).
 */
export const m0006: Migration = {
  name: '0006-report-indexes',
  up: sql(`
    CREATE INDEX entries_report_idx ON entries (workspace_id, entry_date)
      INCLUDE (entry_type, amount_cents, base_currency, project_id, from_party_id, to_party_id, id)
      WHERE entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED');

    ALTER TABLE entry_tags
      ADD COLUMN tag_rank integer NOT NULL DEFAULT 0,
      ADD COLUMN tag_count integer NOT NULL DEFAULT 0;

    UPDATE entry_tags et
       SET tag_rank = r.tag_rank, tag_count = r.tag_count
      FROM (SELECT entry_id, tag_id, row_number() OVER w AS tag_rank, count(*) OVER w AS tag_count
              FROM entry_tags
            WINDOW w AS (PARTITION BY entry_id ORDER BY tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) r
     WHERE et.entry_id = r.entry_id AND et.tag_id = r.tag_id;

    CREATE FUNCTION entry_tags_rerank(entry_ids bigint[]) RETURNS void LANGUAGE sql AS $$
      UPDATE entry_tags et
         SET tag_rank = r.tag_rank, tag_count = r.tag_count
        FROM (SELECT entry_id, tag_id, row_number() OVER w AS tag_rank, count(*) OVER w AS tag_count
                FROM entry_tags
               WHERE entry_id = ANY (entry_ids)
              WINDOW w AS (PARTITION BY entry_id ORDER BY tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) r
       WHERE et.entry_id = r.entry_id AND et.tag_id = r.tag_id
         AND (et.tag_rank, et.tag_count) IS DISTINCT FROM (r.tag_rank::integer, r.tag_count::integer)
    $$;

    CREATE FUNCTION entry_tags_rerank_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM entry_tags_rerank(ARRAY(SELECT DISTINCT entry_id FROM new_rows));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM entry_tags_rerank(ARRAY(SELECT DISTINCT entry_id FROM old_rows));
      ELSIF pg_trigger_depth() = 1 THEN -- an UPDATE, but not the re-ranking's own
        PERFORM entry_tags_rerank(ARRAY(SELECT entry_id FROM old_rows UNION SELECT entry_id FROM new_rows));
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER entry_tags_rank_after_insert AFTER INSERT ON entry_tags
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_tags_rerank_changed();
    CREATE TRIGGER entry_tags_rank_after_delete AFTER DELETE ON entry_tags
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_tags_rerank_changed();
    CREATE TRIGGER entry_tags_rank_after_update AFTER UPDATE ON entry_tags
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_tags_rerank_changed();

  `),
  down: sql(`
    DROP TRIGGER entry_tags_rank_after_update ON entry_tags;
    DROP TRIGGER entry_tags_rank_after_delete ON entry_tags;
    DROP TRIGGER entry_tags_rank_after_insert ON entry_tags;
    DROP FUNCTION entry_tags_rerank_changed();
    DROP FUNCTION entry_tags_rerank(bigint[]);
    ALTER TABLE entry_tags DROP COLUMN tag_count, DROP COLUMN tag_rank;
    DROP INDEX entries_report_idx;
  `),
};
