import { sql, type Migration } from './types.js';

/**
 * Rules (CONTRACT §16) and the entry's own category (§5, §16).
 *
 * Every process keeps the active rules of a workspace in memory (server/domains/rules/rule-cache.ts);
 * `rules_changed` announces, when it commits, every workspace whose rule set may read differently:
 * a rule written, or a tag, category, party or project its actions name updated or deleted (an
 * inactive category or a deleted tag must no longer be applied; a renamed party is a new
 * counterparty name). Statement-level with transition tables: one notification per workspace per
 * statement.
 */
export const m0016: Migration = {
  name: '0016-rules',
  up: sql(`
    CREATE TABLE rules (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      priority integer NOT NULL DEFAULT 0,
      is_active boolean NOT NULL DEFAULT true,
      match text NOT NULL DEFAULT 'ALL' CHECK (match IN ('ALL', 'ANY')),
      conditions jsonb NOT NULL CHECK (jsonb_typeof(conditions) = 'array' AND jsonb_array_length(conditions) <= 20),
      actions jsonb NOT NULL CHECK (jsonb_typeof(actions) = 'array' AND jsonb_array_length(actions) BETWEEN 1 AND 10),
      stop_processing boolean NOT NULL DEFAULT false,
      triggers text[] NOT NULL DEFAULT '{CREATE,INGEST,BANK}'
        CHECK (cardinality(triggers) >= 1 AND triggers <@ '{CREATE,INGEST,BANK}'::text[]),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX rules_workspace_priority_idx ON rules (workspace_id, priority, created_at);

    ALTER TABLE entries ADD COLUMN category_id uuid;
    ALTER TABLE entries ADD CONSTRAINT entries_category_fkey
      FOREIGN KEY (category_id, workspace_id) REFERENCES accounting_categories(id, workspace_id);
    CREATE INDEX entries_category_idx ON entries (category_id) WHERE category_id IS NOT NULL;

    CREATE FUNCTION notify_rules_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('rules_changed', ws::text) FROM (SELECT DISTINCT workspace_id AS ws FROM changed) touched;
      RETURN NULL;
    END $$;

    CREATE TRIGGER rules_inserted_notify AFTER INSERT ON rules
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
    CREATE TRIGGER rules_updated_notify AFTER UPDATE ON rules
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
    CREATE TRIGGER rules_deleted_notify AFTER DELETE ON rules
      REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
    CREATE TRIGGER rules_tags_updated_notify AFTER UPDATE ON tags
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
    CREATE TRIGGER rules_tags_deleted_notify AFTER DELETE ON tags
      REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
    CREATE TRIGGER rules_categories_updated_notify AFTER UPDATE ON accounting_categories
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
    CREATE TRIGGER rules_parties_updated_notify AFTER UPDATE ON parties
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
    CREATE TRIGGER rules_projects_deleted_notify AFTER DELETE ON projects
      REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notify_rules_changed();
  `),
  down: sql(`
    DROP TRIGGER rules_projects_deleted_notify ON projects;
    DROP TRIGGER rules_parties_updated_notify ON parties;
    DROP TRIGGER rules_categories_updated_notify ON accounting_categories;
    DROP TRIGGER rules_tags_deleted_notify ON tags;
    DROP TRIGGER rules_tags_updated_notify ON tags;
    DROP TRIGGER rules_deleted_notify ON rules;
    DROP TRIGGER rules_updated_notify ON rules;
    DROP TRIGGER rules_inserted_notify ON rules;
    DROP FUNCTION notify_rules_changed();
    DROP INDEX entries_category_idx;
    ALTER TABLE entries DROP CONSTRAINT entries_category_fkey;
    ALTER TABLE entries DROP COLUMN category_id;
    DROP TABLE rules;
  `),
};
