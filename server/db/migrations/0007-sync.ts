import { sql, type Migration } from './types.js';

/**
 * Sync with external accounting systems (CONTRACT §9–§10): replay protection for webhooks,
 * the bookkeeping of scheduled pulls, and the index of the unfiltered sync list.
 * (pg-boss keeps its own tables in the `pgboss` schema and installs them itself.)
 */
export const m0007: Migration = {
  name: '0007-sync',
  up: sql(`
    -- one row per accepted webhook event: a repeated eventId on the same connection is a duplicate
    CREATE TABLE accounting_webhook_events (
      connection_id uuid NOT NULL,
      event_id text NOT NULL CHECK (length(event_id) BETWEEN 1 AND 255),
      workspace_id integer NOT NULL,
      action text NOT NULL CHECK (action IN ('ENTRY_APPROVED', 'ENTRY_REJECTED', 'ENTRY_VOIDED', 'DOCUMENT_REQUESTED', 'ENTRY_UPDATED')),
      entry_id bigint NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (connection_id, event_id),
      FOREIGN KEY (connection_id, workspace_id) REFERENCES accounting_connections(id, workspace_id),
      FOREIGN KEY (entry_id, workspace_id) REFERENCES entries(id, workspace_id)
    );
    CREATE INDEX accounting_webhook_events_entry_idx ON accounting_webhook_events (entry_id);

    -- scheduled pulls (BIDIRECTIONAL): the cron fire time last dispatched, so each fire time runs once
    CREATE TABLE accounting_pull_schedule (
      connection_id uuid PRIMARY KEY,
      workspace_id integer NOT NULL,
      last_fire_at timestamptz NOT NULL,
      last_finished_at timestamptz,
      last_error text CHECK (length(last_error) <= 4000),
      FOREIGN KEY (connection_id, workspace_id) REFERENCES accounting_connections(id, workspace_id)
    );

    -- GET /accounting/syncs without a status filter
    CREATE INDEX accounting_syncs_ws_updated_idx ON accounting_syncs (workspace_id, updated_at DESC, id DESC);
  `),
  down: sql(`
    DROP INDEX accounting_syncs_ws_updated_idx;
    DROP TABLE accounting_pull_schedule, accounting_webhook_events;
  `),
};
