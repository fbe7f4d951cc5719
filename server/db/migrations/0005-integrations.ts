import { sql, type Migration } from './types.js';

export const m0005: Migration = {
  name: '0005-integrations',
  up: sql(`
    CREATE TABLE integrations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      project_ids integer[] NOT NULL DEFAULT '{}',
      key_prefix text NOT NULL CHECK (length(key_prefix) BETWEEN 8 AND 40),
      key_hash text NOT NULL CHECK (key_hash ~ '^[0-9a-f]{64}$'),
      entry_source_id integer NOT NULL,
      is_active boolean NOT NULL DEFAULT true,
      revoked_at timestamptz,
      created_by uuid REFERENCES users(id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (id, workspace_id),
      CHECK (is_active = (revoked_at IS NULL)),
      FOREIGN KEY (entry_source_id, workspace_id) REFERENCES entry_sources(id, workspace_id)
    );
    CREATE UNIQUE INDEX integrations_key_hash_key ON integrations (key_hash);
    CREATE UNIQUE INDEX integrations_entry_source_key ON integrations (entry_source_id);
    CREATE INDEX integrations_workspace_idx ON integrations (workspace_id, created_at, id);

    -- the integration's entry source is written first (integration_id known in advance), so the link is checked at commit
    CREATE UNIQUE INDEX entry_sources_integration_key ON entry_sources (integration_id) WHERE integration_id IS NOT NULL;
    ALTER TABLE entry_sources ADD CONSTRAINT entry_sources_integration_fk
      FOREIGN KEY (integration_id, workspace_id) REFERENCES integrations(id, workspace_id) DEFERRABLE INITIALLY DEFERRED;

    -- ingest idempotency: one entry per (integration, externalId), also under racing requests
    ALTER TABLE entries ADD COLUMN integration_id uuid, ADD COLUMN external_id text;
    ALTER TABLE entries ADD CONSTRAINT entries_external_id_check
      CHECK ((integration_id IS NULL) = (external_id IS NULL) AND length(external_id) BETWEEN 1 AND 255);
    ALTER TABLE entries ADD CONSTRAINT entries_integration_fk
      FOREIGN KEY (integration_id, workspace_id) REFERENCES integrations(id, workspace_id);
    CREATE UNIQUE INDEX entries_integration_external_key ON entries (integration_id, external_id) WHERE integration_id IS NOT NULL;

    -- parties found by name (case-insensitive) when ingest names them
    CREATE INDEX parties_workspace_lower_name_idx ON parties (workspace_id, lower(name), id);

    -- ingest rate limit: a fixed one-minute window counter per integration key, shared by every instance
    CREATE TABLE ingest_rate_windows (
      integration_id uuid NOT NULL,
      workspace_id integer NOT NULL,
      window_start timestamptz NOT NULL,
      request_count integer NOT NULL CHECK (request_count > 0),
      PRIMARY KEY (integration_id, window_start),
      FOREIGN KEY (integration_id, workspace_id) REFERENCES integrations(id, workspace_id) ON DELETE CASCADE
    );
  `),
  down: sql(`
    DROP TABLE ingest_rate_windows;
    DROP INDEX parties_workspace_lower_name_idx;
    DROP INDEX entries_integration_external_key;
    ALTER TABLE entries DROP CONSTRAINT entries_integration_fk, DROP CONSTRAINT entries_external_id_check;
    ALTER TABLE entries DROP COLUMN external_id, DROP COLUMN integration_id;
    ALTER TABLE entry_sources DROP CONSTRAINT entry_sources_integration_fk;
    DROP INDEX entry_sources_integration_key;
    DROP TABLE integrations;
  `),
};
