import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { iso } from '../../lib/dates.js';
import { conflict, notFound } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import type {
  ListDeliveriesQuery,
  ReplayInput,
  WebhookDeliveryObject,
  WebhookEventType,
} from '../../../shared/contracts/outbound-webhooks.js';
import { attempt, claimOne, recordOutcomes } from './attempts.js';
import { loadEndpoint, presentEndpoint } from './endpoint-rows.js';
import { wakeWorkersAfterCommit } from './delivery-wakeup.js';

type DeliveryRow = {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: WebhookEventType;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
};

const present = (r: DeliveryRow): WebhookDeliveryObject => ({
  id: r.id,
  endpointId: r.endpoint_id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  lastAttemptAt: iso(r.last_attempt_at),
  nextAttemptAt: iso(r.next_attempt_at),
  createdAt: r.created_at.toISOString(),
});

const SELECT = `SELECT d.id, d.endpoint_id, d.event_id, ev.type AS event_type, d.status, d.attempts, d.last_status_code, d.last_error,
                       d.last_attempt_at, d.next_attempt_at, d.created_at
                  FROM webhook_deliveries d JOIN webhook_events ev ON ev.workspace_id = d.workspace_id AND ev.id = d.event_id`;

async function deliveryOf(endpointId: string, deliveryId: string, tx?: Transaction): Promise<WebhookDeliveryObject> {
  const [row] = await db().query<DeliveryRow>(`${SELECT} WHERE d.id = :id AND d.endpoint_id = :endpointId`, {
    replacements: { id: deliveryId, endpointId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  if (!row) throw notFound('Webhook delivery');
  return present(row);
}

/** The endpoint's deliveries, newest first (paged). */
export async function listDeliveries(actor: Actor, q: ListDeliveriesQuery) {
  await loadEndpoint(actor, q.id);
  const where = `d.endpoint_id = :id${q.status ? ' AND d.status = :status' : ''}`;
  const replacements = { id: q.id, status: q.status, limit: q.limit, offset: q.offset };
  const [rows, [{ total }]] = await Promise.all([
    db().query<DeliveryRow>(`${SELECT} WHERE ${where} ORDER BY d.created_at DESC, d.id DESC LIMIT :limit OFFSET :offset`, {
      replacements,
      type: QueryTypes.SELECT,
    }),
    db().query<{ total: number }>(`SELECT count(*)::int AS total FROM webhook_deliveries d WHERE ${where}`, {
      replacements,
      type: QueryTypes.SELECT,
    }),
  ]);
  return { items: rows.map(present), total, limit: q.limit, offset: q.offset };
}

/** Claims the delivery (committed), makes the attempt now, records it and returns the delivery. */
async function attemptNow(
  endpointId: string,
  workspaceId: number,
  claim: (tx: Transaction) => Promise<string>,
): Promise<WebhookDeliveryObject> {
  const claimed = await transaction(async (tx) => claimOne(tx, await claim(tx), workspaceId));
  await recordOutcomes([await attempt(claimed, true)]);
  return deliveryOf(endpointId, claimed.id);
}

/** Re-sends the delivery now, with the same webhook-id; 409 while an attempt at it is in flight. */
export async function retryDelivery(actor: Actor, input: { id: string; deliveryId: string }): Promise<WebhookDeliveryObject> {
  const endpoint = await loadEndpoint(actor, input.id);
  return attemptNow(input.id, endpoint.workspace_id, async (tx) => {
    const [row] = await db().query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE id = :id AND endpoint_id = :endpointId', {
      replacements: { id: input.deliveryId, endpointId: input.id },
      type: QueryTypes.SELECT,
      transaction: tx,
    });
    if (!row) throw notFound('Webhook delivery');
    return row.id;
  });
}

/** Sends a `webhook.test` event to this endpoint only (whatever it subscribes to) and returns its delivery. */
export async function testEndpoint(actor: Actor, id: string): Promise<WebhookDeliveryObject> {
  const endpoint = await loadEndpoint(actor, id);
  return attemptNow(id, endpoint.workspace_id, async (tx) => {
    const eventId = randomUUID();
    const now = clock.now();
    await db().query(
      `INSERT INTO webhook_events (id, workspace_id, type, data, created_at) VALUES (:eventId, :ws, 'webhook.test', CAST(:data AS jsonb), :now)`,
      {
        replacements: { eventId, ws: endpoint.workspace_id, data: JSON.stringify({ object: presentEndpoint(endpoint) }), now },
        transaction: tx,
      },
    );
    const [delivery] = await db().query<{ id: string }>(
      `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, next_attempt_at, created_at)
       VALUES (:ws, :endpointId, :eventId, :now, :now) RETURNING id`,
      { replacements: { ws: endpoint.workspace_id, endpointId: id, eventId, now }, type: QueryTypes.SELECT, transaction: tx },
    );
    return delivery.id;
  });
}

/**
 * Queues a new delivery of every event of [since, until) that the endpoint subscribes to (test
 * events excepted: they were sent to one endpoint). 409 for a disabled endpoint.
 */
export async function replay(actor: Actor, input: ReplayInput): Promise<{ queued: number }> {
  return transaction(async (tx) => {
    const endpoint = await loadEndpoint(actor, input.id, tx, true);
    if (!endpoint.is_active) throw conflict('The endpoint is disabled; enable it before replaying events to it');
    const now = clock.now();
    wakeWorkersAfterCommit(tx);
    const rows = await db().query<{ id: string }>(
      `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, next_attempt_at, created_at)
       SELECT ev.workspace_id, :endpointId, ev.id, :now, :now
         FROM webhook_events ev
        WHERE ev.workspace_id = :ws AND ev.created_at >= :since AND ev.created_at < :until AND ev.type <> 'webhook.test'
          AND (cardinality(CAST(:types AS text[])) = 0 OR ev.type = ANY (CAST(:types AS text[])))
       RETURNING id`,
      {
        replacements: {
          endpointId: endpoint.id,
          ws: endpoint.workspace_id,
          since: new Date(input.since),
          until: input.until ? new Date(input.until) : now,
          types: `{${endpoint.event_types.join(',')}}`,
          now,
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return { queued: rows.length };
  });
}
