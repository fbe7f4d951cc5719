import { sql, type Migration } from './types.js';

/**
 * Every statement that changes entries or their tags announces the workspaces it touched on
 * `entries_changed` when it commits, so each server process drops the list totals it keeps
 * for them (server/domains/entries/list-totals.ts). Statement-level with transition tables:
 * one notification per workspace per statement, also for a 1,000-row ingest.
 */
export const m0010: Migration = {
  name: '0010-entries-change-notify',
  up: sql(`
    CREATE FUNCTION notify_entries_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('entries_changed', ws::text) FROM (SELECT DISTINCT workspace_id AS ws FROM changed) touched;
      RETURN NULL;
    END $$;

    CREATE TRIGGER entries_inserted_notify AFTER INSERT ON entries
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_entries_changed();
    CREATE TRIGGER entries_updated_notify AFTER UPDATE ON entries
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_entries_changed();
    CREATE TRIGGER entries_deleted_notify AFTER DELETE ON entries
      REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_entries_changed();
    CREATE TRIGGER entry_tags_inserted_notify AFTER INSERT ON entry_tags
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_entries_changed();
    CREATE TRIGGER entry_tags_deleted_notify AFTER DELETE ON entry_tags
      REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_entries_changed();
  `),
  down: sql(`
    DROP TRIGGER entry_tags_deleted_notify ON entry_tags;
    DROP TRIGGER entry_tags_inserted_notify ON entry_tags;
    DROP TRIGGER entries_deleted_notify ON entries;
    DROP TRIGGER entries_updated_notify ON entries;
    DROP TRIGGER entries_inserted_notify ON entries;
    DROP FUNCTION notify_entries_changed();
  `),
};
