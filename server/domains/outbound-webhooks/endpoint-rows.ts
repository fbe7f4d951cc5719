import { lockById } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { WebhookEndpointObject, WebhookEventType } from '../../../shared/contracts/outbound-webhooks.js';
import type { SecretColumns } from './endpoint-secrets.js';

export type EndpointRow = SecretColumns & {
  id: string;
  workspace_id: number;
  url: string;
  event_types: WebhookEventType[];
  description: string | null;
  is_active: boolean;
  disabled_reason: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
};

/** The contract's endpoint object: an allow-list, never a secret. */
export const presentEndpoint = (r: EndpointRow): WebhookEndpointObject => ({
  id: r.id,
  workspaceId: r.workspace_id,
  url: r.url,
  eventTypes: r.event_types,
  description: r.description,
  isActive: r.is_active,
  disabledReason: r.disabled_reason,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

/** The endpoint (locked with `forUpdate`), or 404 when absent or in a workspace the caller is not a member of. */
export async function loadEndpoint(actor: Actor, id: string, tx?: Transaction, forUpdate = false): Promise<EndpointRow> {
  const rows = await db().query<EndpointRow>(
    `SELECT * FROM webhook_endpoints WHERE id = :id${forUpdate ? await lockById('webhook_endpoints', id, tx, 'FOR UPDATE') : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  const row = rows[0];
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('Webhook endpoint');
  return row;
}

/**
 * Marks the endpoint's PENDING deliveries FAILED (when it is disabled: by a user, or by a 410);
 * replay queues them again once it is active.
 */
export async function failPendingDeliveries(tx: Transaction | undefined, endpointIds: string[], reason: string, now: Date): Promise<void> {
  if (endpointIds.length === 0) return;
  await db().query(
    `UPDATE webhook_deliveries SET status = 'FAILED', next_attempt_at = NULL, claim_token = NULL, last_error = :reason
      WHERE endpoint_id IN (:ids) AND status = 'PENDING' AND (claim_token IS NULL OR next_attempt_at <= :now)`,
    { replacements: { ids: endpointIds, reason: reason.slice(0, 1000), now }, transaction: tx },
  );
}
