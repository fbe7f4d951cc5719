import { sql, type Migration } from './types.js';

/**
 * Create-path speed (issue 23): entry_tags_rerank (migration 0006) was a LANGUAGE sql function, whose
 * UPDATE PostgreSQL parses and plans again on every call — ≈ 370 µs of the ≈ 1,200 µs a single create's
 * insert statement cost on the bench, for an entry with two tags. The same UPDATE in PL/pgSQL keeps its
 * plan for the session, and runs only when a rank is stale: an UPDATE of no rows still fires the table's
 * statement triggers (≈ 270 µs here). Writers that know the ranks (the create path) insert them, so a
 * create neither updates its tag rows nor fires those triggers.
 */
export const m0021: Migration = {
  name: '0021-tag-rank-plpgsql',
  up: sql(`
    CREATE OR REPLACE FUNCTION entry_tags_rerank(entry_ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
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
    END $$;
  `),
  down: sql(`
    CREATE OR REPLACE FUNCTION entry_tags_rerank(entry_ids bigint[]) RETURNS void LANGUAGE sql AS $$
      UPDATE entry_tags et
         SET tag_rank = r.tag_rank, tag_count = r.tag_count
        FROM (SELECT entry_id, tag_id, row_number() OVER w AS tag_rank, count(*) OVER w AS tag_count
                FROM entry_tags
               WHERE entry_id = ANY (entry_ids)
              WINDOW w AS (PARTITION BY entry_id ORDER BY tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) r
       WHERE et.entry_id = r.entry_id AND et.tag_id = r.tag_id
         AND (et.tag_rank, et.tag_count) IS DISTINCT FROM (r.tag_rank::integer, r.tag_count::integer)
    $$;
  `),
};
