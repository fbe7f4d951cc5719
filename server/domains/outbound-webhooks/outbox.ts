import { randomUUID } from 'node:crypto';
import { db, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import type { WebhookEventType } from '../../../shared/contracts/outbound-webhooks.js';
import { wakeWorkersAfterCommit } from './delivery-wakeup.js';

/**
 * The transactional outbox (CONTRACT §15): an event is written in the transaction of the change
 * it reports, with one PENDING delivery per active endpoint of the workspace that subscribes to
 * its type, so a change that commits always has its events and a rolled-back one never does. The
 * delivery workers pick the deliveries up after the commit (server/domains/outbound-webhooks/delivery-worker.ts).
 */

/** Every type but `webhook.test`, which only POST /webhook-endpoints/{id}/test sends. */
export type PublishedEventType = Exclude<WebhookEventType, 'webhook.test'>;

export type PublishInput = {
  workspaceId: number;
  type: PublishedEventType;
  /** the contract object after the change (becomes `data.object`) */
  object: unknown;
  /** further fields of `data`, e.g. `{ originalEntryId }` */
  data?: Record<string, unknown>;
};

/**
 * The events (`events`: a jsonb parameter of outboxRows' JSON) and one PENDING delivery per subscribed active
 * endpoint, as two CTEs (`outbox_events`, `outbox_deliveries`) of a statement: publishMany's own, or a
 * writer's that folds its outbound events into its write (the ledger core's create). `now`: an SQL timestamp.
 */
export const outboxCtesSql = (events: string, now: string) => `outbox_events AS (
       INSERT INTO webhook_events (id, workspace_id, type, data, created_at)
       SELECT (x.e->>'id')::uuid, (x.e->>'ws')::int, x.e->>'type', x.e->'data', ${now}
         FROM jsonb_array_elements(${events}::jsonb) WITH ORDINALITY AS x(e, n)
        ORDER BY x.n
       RETURNING id, workspace_id, type
     ), outbox_deliveries AS (
       INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, next_attempt_at, created_at)
       SELECT ev.workspace_id, ep.id, ev.id, ${now}, ${now}
         FROM outbox_events ev JOIN webhook_endpoints ep
           ON ep.workspace_id = ev.workspace_id AND ep.is_active
          AND (cardinality(ep.event_types) = 0 OR ev.type = ANY (ep.event_types))
     )`;

/** The JSON parameter of outboxCtesSql for `events`, and their new ids in input order. */
export function outboxRows(events: readonly PublishInput[]): { ids: string[]; json: string } {
  const ids = events.map(() => randomUUID());
  const rows = events.map((e, i) => ({ id: ids[i], ws: e.workspaceId, type: e.type, data: { ...e.data, object: e.object } }));
  return { ids, json: JSON.stringify(rows) };
}

/**
 * Writes the events and their deliveries in ONE statement (set-based: a batch of 1,000 is one
 * round trip). Returns the event ids, in input order.
 */
export async function publishMany(tx: Transaction, events: readonly PublishInput[]): Promise<string[]> {
  if (events.length === 0) return [];
  const { ids, json } = outboxRows(events);
  wakeWorkersAfterCommit(tx);
  await db().query(`WITH ${outboxCtesSql('$1', '$2')} SELECT 1`, { bind: [json, clock.now()], transaction: tx });
  return ids;
}

/** One event (and its deliveries) in the caller's transaction; returns its id. */
export async function publish(tx: Transaction, event: PublishInput): Promise<string> {
  const [id] = await publishMany(tx, [event]);
  return id;
}
