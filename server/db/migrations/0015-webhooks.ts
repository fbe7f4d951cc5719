import { sql, type Migration } from './types.js';

/**
 * Outbound webhooks (CONTRACT §15): endpoints (secrets sealed with AES-256-GCM under a key id, the
 * previous secret kept for the 24 h after a rotation), the outbox of events, and one delivery row
 * per (endpoint, event) to send. Events and deliveries are written in the transaction of the
 * change they report; a statement-level trigger announces new deliveries on `webhook_deliveries`
 * when that transaction commits, so the delivery workers of every instance wake up at once.
 *
 * A PENDING delivery is due when `next_attempt_at <= now`; a worker claims it by moving
 * `next_attempt_at` past the attempt's timeout (a lease) and stamping `claim_token`, so that no
 * other instance takes it meanwhile, and a crashed instance's claims come due again on their own.
 */
export const m0015: Migration = {
  name: '0015-webhooks',
  up: sql(`
    CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2000),
      event_types text[] NOT NULL DEFAULT '{}',
      description text CHECK (length(description) <= 500),
      is_active boolean NOT NULL DEFAULT true,
      disabled_reason text CHECK (length(disabled_reason) <= 500),
      secret_ciphertext bytea NOT NULL,
      secret_iv bytea NOT NULL,
      secret_tag bytea NOT NULL,
      secret_kid text NOT NULL,
      previous_secret_ciphertext bytea,
      previous_secret_iv bytea,
      previous_secret_tag bytea,
      previous_secret_kid text,
      secret_rotated_at timestamptz,
      created_by uuid REFERENCES users(id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (id, workspace_id),
      CHECK ((previous_secret_ciphertext IS NULL) = (secret_rotated_at IS NULL))
    );
    CREATE INDEX webhook_endpoints_workspace_idx ON webhook_endpoints (workspace_id, created_at, id);

    CREATE TABLE webhook_events (
      id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      type text NOT NULL CHECK (length(type) BETWEEN 1 AND 100),
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    -- the feed (oldest first, optionally by type; seq keeps the order of one transaction's events) and the replay window
    CREATE INDEX webhook_events_feed_idx ON webhook_events (workspace_id, created_at, seq);
    CREATE INDEX webhook_events_type_feed_idx ON webhook_events (workspace_id, type, created_at, seq);

    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL,
      endpoint_id uuid NOT NULL,
      event_id uuid NOT NULL,
      status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      last_status_code integer,
      last_error text CHECK (length(last_error) <= 1000),
      last_attempt_at timestamptz,
      next_attempt_at timestamptz,
      claim_token uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (endpoint_id, workspace_id) REFERENCES webhook_endpoints(id, workspace_id) ON DELETE CASCADE,
      FOREIGN KEY (event_id) REFERENCES webhook_events(id),
      CHECK ((status = 'PENDING') = (next_attempt_at IS NOT NULL))
    );
    -- every index here is rewritten by the two updates an attempt makes (claim, outcome): only those the queries need.
    -- the workers' "due" query: PENDING rows by next attempt
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING';
    -- the deliveries list of an endpoint (newest first), with and without a status filter
    CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
    CREATE INDEX webhook_deliveries_endpoint_status_idx ON webhook_deliveries (endpoint_id, status, created_at DESC, id DESC);

    CREATE FUNCTION notify_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('webhook_deliveries', '');
      RETURN NULL;
    END $$;
    CREATE TRIGGER webhook_deliveries_inserted_notify AFTER INSERT ON webhook_deliveries
      FOR EACH STATEMENT EXECUTE FUNCTION notify_webhook_deliveries();
  `),
  down: sql(`
    DROP TRIGGER webhook_deliveries_inserted_notify ON webhook_deliveries;
    DROP FUNCTION notify_webhook_deliveries();
    DROP TABLE webhook_deliveries;
    DROP TABLE webhook_events;
    DROP TABLE webhook_endpoints;
  `),
};
