import { sql, type Migration } from './types.js';

/**
 * Accounting setup and the review queue (CONTRACT §7–§9): connections with encrypted
 * secrets, chart of accounts, party/tax mappings, reviews and the sync records they create.
 */
export const m0004: Migration = {
  name: '0004-accounting',
  up: sql(`
    CREATE TABLE accounting_connections (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      provider_type text NOT NULL CHECK (provider_type ~ '^[A-Z][A-Z0-9_]{1,49}$'),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      -- AES-256-GCM, AAD 'connection:<id>:credentials'; the key id says which CREDENTIALS_KEYS key
      credentials_ciphertext bytea NOT NULL,
      credentials_iv bytea NOT NULL,
      credentials_tag bytea NOT NULL,
      credentials_kid text NOT NULL,
      -- config.webhookSecret, encrypted the same way (AAD 'connection:<id>:webhookSecret'); never in config
      webhook_secret_ciphertext bytea,
      webhook_secret_iv bytea,
      webhook_secret_tag bytea,
      webhook_secret_kid text,
      config jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(config) = 'object' AND NOT config ? 'webhookSecret'),
      sync_mode text NOT NULL DEFAULT 'MANUAL_PUSH' CHECK (sync_mode IN ('MANUAL', 'MANUAL_PUSH', 'AUTO_PUSH', 'BIDIRECTIONAL')),
      require_review boolean NOT NULL DEFAULT true,
      require_completeness_for_sync boolean NOT NULL DEFAULT true,
      sync_schedule_cron text CHECK (length(sync_schedule_cron) <= 200),
      project_ids integer[] NOT NULL DEFAULT '{}',
      is_active boolean NOT NULL DEFAULT true,
      last_pulled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (id, workspace_id),
      CHECK (
        (webhook_secret_ciphertext IS NULL AND webhook_secret_iv IS NULL AND webhook_secret_tag IS NULL AND webhook_secret_kid IS NULL)
        OR (webhook_secret_ciphertext IS NOT NULL AND webhook_secret_iv IS NOT NULL AND webhook_secret_tag IS NOT NULL
            AND webhook_secret_kid IS NOT NULL)
      )
    );
    CREATE INDEX accounting_connections_ws_idx ON accounting_connections (workspace_id, created_at, id);
    CREATE INDEX accounting_connections_review_idx ON accounting_connections (workspace_id) WHERE is_active AND require_review;

    CREATE TABLE accounting_categories (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      code text NOT NULL CHECK (length(code) BETWEEN 1 AND 50),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      account_type text NOT NULL CHECK (account_type IN ('ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE')),
      parent_id uuid,
      external_id text CHECK (length(external_id) <= 255),
      is_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (id, workspace_id),
      CONSTRAINT accounting_categories_code_key UNIQUE (workspace_id, code),
      CHECK (parent_id IS DISTINCT FROM id),
      FOREIGN KEY (parent_id, workspace_id) REFERENCES accounting_categories(id, workspace_id)
    );
    CREATE INDEX accounting_categories_active_idx ON accounting_categories (workspace_id, code) WHERE is_active;
    CREATE INDEX accounting_categories_parent_idx ON accounting_categories (parent_id) WHERE parent_id IS NOT NULL;
    CREATE INDEX accounting_categories_external_idx ON accounting_categories (workspace_id, external_id) WHERE external_id IS NOT NULL;

    CREATE TABLE party_mappings (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL,
      connection_id uuid NOT NULL,
      party_id integer NOT NULL,
      external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 255),
      external_type text NOT NULL CHECK (length(external_type) BETWEEN 1 AND 100),
      external_name text NOT NULL CHECK (length(external_name) BETWEEN 1 AND 255),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT party_mappings_connection_party_key UNIQUE (connection_id, party_id),
      FOREIGN KEY (connection_id, workspace_id) REFERENCES accounting_connections(id, workspace_id),
      FOREIGN KEY (party_id, workspace_id) REFERENCES parties(id, workspace_id)
    );
    CREATE INDEX party_mappings_connection_idx ON party_mappings (connection_id, created_at, id);
    CREATE INDEX party_mappings_external_idx ON party_mappings (connection_id, external_id);

    CREATE TABLE tax_mappings (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL,
      connection_id uuid NOT NULL,
      tax_code text NOT NULL CHECK (length(tax_code) BETWEEN 1 AND 50),
      external_tax_code_id text NOT NULL CHECK (length(external_tax_code_id) BETWEEN 1 AND 255),
      external_name text CHECK (length(external_name) <= 255),
      rate_percent numeric(9, 4) CHECK (rate_percent >= 0 AND rate_percent <= 1000),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT tax_mappings_connection_code_key UNIQUE (connection_id, tax_code),
      FOREIGN KEY (connection_id, workspace_id) REFERENCES accounting_connections(id, workspace_id)
    );
    CREATE INDEX tax_mappings_connection_idx ON tax_mappings (connection_id, created_at, id);

    CREATE TABLE accounting_reviews (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL,
      entry_id bigint NOT NULL,
      connection_id uuid,
      status text NOT NULL DEFAULT 'QUEUED'
        CHECK (status IN ('QUEUED', 'IN_REVIEW', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED')),
      reviewer_id uuid REFERENCES users(id),
      notes text CHECK (length(notes) <= 2000),
      category_id uuid,
      decided_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((status IN ('APPROVED', 'REJECTED', 'CHANGES_REQUESTED')) = (decided_at IS NOT NULL)),
      FOREIGN KEY (entry_id, workspace_id) REFERENCES entries(id, workspace_id),
      FOREIGN KEY (connection_id, workspace_id) REFERENCES accounting_connections(id, workspace_id),
      FOREIGN KEY (category_id, workspace_id) REFERENCES accounting_categories(id, workspace_id)
    );
    -- at most one open (QUEUED or IN_REVIEW) review per (entry, connection); a NULL connection counts as one connection
    CREATE UNIQUE INDEX accounting_reviews_one_open_key ON accounting_reviews
      (entry_id, COALESCE(connection_id, '00000000-0000-0000-0000-000000000000'::uuid))
      WHERE status IN ('QUEUED', 'IN_REVIEW');
    CREATE INDEX accounting_reviews_ws_idx ON accounting_reviews (workspace_id, status, created_at DESC, id DESC);
    CREATE INDEX accounting_reviews_ws_created_idx ON accounting_reviews (workspace_id, created_at DESC, id DESC);
    CREATE INDEX accounting_reviews_connection_idx ON accounting_reviews (connection_id, status, created_at DESC, id DESC);
    CREATE INDEX accounting_reviews_reviewer_idx ON accounting_reviews (reviewer_id, created_at DESC, id DESC)
      WHERE reviewer_id IS NOT NULL;
    CREATE INDEX accounting_reviews_entry_idx ON accounting_reviews (entry_id, connection_id, created_at DESC);

    CREATE TABLE accounting_syncs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL,
      connection_id uuid NOT NULL,
      entry_id bigint NOT NULL,
      status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SYNCED', 'FAILED', 'STALE', 'CONFLICT')),
      external_id text CHECK (length(external_id) <= 255),
      external_version text CHECK (length(external_version) <= 255),
      last_error text CHECK (length(last_error) <= 4000),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      last_attempt_at timestamptz,
      synced_at timestamptz,
      external_snapshot jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT accounting_syncs_connection_entry_key UNIQUE (connection_id, entry_id),
      FOREIGN KEY (connection_id, workspace_id) REFERENCES accounting_connections(id, workspace_id),
      FOREIGN KEY (entry_id, workspace_id) REFERENCES entries(id, workspace_id)
    );
    CREATE INDEX accounting_syncs_ws_status_idx ON accounting_syncs (workspace_id, status, updated_at DESC, id DESC);
    CREATE INDEX accounting_syncs_connection_status_idx ON accounting_syncs (connection_id, status, created_at, id);
    CREATE INDEX accounting_syncs_entry_idx ON accounting_syncs (entry_id);
    CREATE UNIQUE INDEX accounting_syncs_external_key ON accounting_syncs (connection_id, external_id) WHERE external_id IS NOT NULL;

    -- the exception summary counts REQUESTED documents per workspace (documents table: 0003-documents)
    CREATE INDEX entry_documents_ws_requested_idx ON entry_documents (workspace_id) WHERE status = 'REQUESTED';
  `),
  down: sql(`
    DROP INDEX entry_documents_ws_requested_idx;
    DROP TABLE accounting_syncs, accounting_reviews, tax_mappings, party_mappings, accounting_categories, accounting_connections;
  `),
};
