import { sql, type Migration } from './types.js';

/**
 * CONTRACT §19, API keys for apps: the keys (only a SHA-256 of each secret, and of the previous
 * secret while a rotation's grace lasts), their per-minute request windows shared by every
 * instance, events attributed to a key, and manual matches made by a key (created_by is a person
 * or null: AUTO matches still have none).
 */
export const m0032: Migration = {
  name: '0032-api-keys',
  up: sql(`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      name text NOT NULL,
      prefix text NOT NULL UNIQUE,
      key_hash text NOT NULL UNIQUE,
      previous_key_hash text UNIQUE,
      previous_key_until timestamptz,
      permissions text[] NOT NULL,
      project_ids integer[] NOT NULL DEFAULT '{}',
      created_by uuid REFERENCES users(id),
      created_at timestamptz NOT NULL,
      expires_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz,
      CHECK ((previous_key_hash IS NULL) = (previous_key_until IS NULL))
    );
    CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id, created_at, id);

    CREATE TABLE api_key_rate_windows (
      api_key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
      window_start timestamptz NOT NULL,
      request_count integer NOT NULL,
      PRIMARY KEY (api_key_id, window_start)
    );

    ALTER TABLE entry_events DROP CONSTRAINT entry_events_actor_type_check;
    ALTER TABLE entry_events ADD CONSTRAINT entry_events_actor_type_check
      CHECK (actor_type IN ('USER', 'INTEGRATION', 'WEBHOOK', 'SYSTEM', 'API_KEY'));

    ALTER TABLE bank_matches DROP CONSTRAINT bank_matches_check;
    ALTER TABLE bank_matches ADD CONSTRAINT bank_matches_check CHECK (method <> 'AUTO' OR created_by IS NULL);
  `),
  down: sql(`
    ALTER TABLE bank_matches DROP CONSTRAINT bank_matches_check;
    ALTER TABLE bank_matches ADD CONSTRAINT bank_matches_check CHECK ((method = 'AUTO') = (created_by IS NULL));
    ALTER TABLE entry_events DROP CONSTRAINT entry_events_actor_type_check;
    ALTER TABLE entry_events ADD CONSTRAINT entry_events_actor_type_check
      CHECK (actor_type IN ('USER', 'INTEGRATION', 'WEBHOOK', 'SYSTEM'));
    DROP TABLE api_key_rate_windows, api_keys;
  `),
};
