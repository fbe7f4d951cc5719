import { sql, type Migration } from './types.js';

/**
 * Issue 23: the transaction that writes webhook deliveries wakes its own process's worker after
 * commit (server/domains/webhooks/delivery-wakeup.ts); other processes find them at their 1 s poll.
 * The NOTIFY per committing transaction goes: on the bench's POST scenario it cost ≈ 0.3 ms of
 * PostgreSQL CPU per create with an endpoint (the notification queue's lock, a wake-up of each listener).
 */
export const m0022: Migration = {
  name: '0022-deliveries-wake-in-process',
  up: sql(`
    DROP TRIGGER webhook_deliveries_inserted_notify ON webhook_deliveries;
    DROP FUNCTION notify_webhook_deliveries();
  `),
  down: sql(`
    CREATE FUNCTION notify_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('webhook_deliveries', '');
      RETURN NULL;
    END $$;
    CREATE TRIGGER webhook_deliveries_inserted_notify AFTER INSERT ON webhook_deliveries
      FOR EACH STATEMENT EXECUTE FUNCTION notify_webhook_deliveries();
  `),
};
