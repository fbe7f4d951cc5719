import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { creatorOf, scope, type Actor } from '../../lib/scope.js';
import type {
  CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput,
  WebhookEndpointObject,
  WebhookEndpointWithSecret,
} from '../../../shared/contracts/outbound-webhooks.js';
import { failPendingDeliveries, loadEndpoint, presentEndpoint, type EndpointRow } from './endpoint-rows.js';
import { newSecret, openSecret, sealedSecretColumns } from './endpoint-secrets.js';
import { assertWebhookUrl } from './url-guard.js';

const typesLiteral = (types: readonly string[] | undefined) => `{${[...new Set(types ?? [])].sort().join(',')}}`;

/** Creates the endpoint; its signing secret is returned in this response only and stored encrypted. */
export async function createEndpoint(actor: Actor, input: CreateWebhookEndpointInput): Promise<WebhookEndpointWithSecret> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  await assertWebhookUrl(input.url);
  const id = randomUUID();
  const secret = newSecret();
  const now = clock.now();
  const [row] = await db().query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, event_types, description, secret_ciphertext, secret_iv, secret_tag,
                                    secret_kid, created_by, created_at, updated_at)
     VALUES (:id, :ws, :url, CAST(:types AS text[]), :description, :secret_ciphertext, :secret_iv, :secret_tag, :secret_kid,
             :createdBy, :now, :now)
     RETURNING *`,
    {
      replacements: {
        id,
        ws: input.workspaceId,
        url: input.url,
        types: typesLiteral(input.eventTypes),
        description: input.description || null,
        createdBy: creatorOf(actor),
        now,
        ...sealedSecretColumns(id, secret),
      },
      type: QueryTypes.SELECT,
    },
  );
  return { ...presentEndpoint(row), secret };
}

export async function listEndpoints(actor: Actor, workspaceId: number): Promise<WebhookEndpointObject[]> {
  scope.requireWorkspaceMember(actor, workspaceId);
  const rows = await db().query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE workspace_id = :ws ORDER BY created_at, id', {
    replacements: { ws: workspaceId },
    type: QueryTypes.SELECT,
  });
  return rows.map(presentEndpoint);
}

export const getEndpoint = async (actor: Actor, id: string): Promise<WebhookEndpointObject> =>
  presentEndpoint(await loadEndpoint(actor, id));

/**
 * Changes url, eventTypes, description or isActive. Re-activating clears `disabledReason`;
 * deactivating fails the PENDING deliveries (a replay queues them again).
 */
export async function updateEndpoint(actor: Actor, input: UpdateWebhookEndpointInput): Promise<WebhookEndpointObject> {
  await loadEndpoint(actor, input.id); // 404 before the URL check
  if (input.url !== undefined) await assertWebhookUrl(input.url);
  return transaction(async (tx) => {
    const row = await loadEndpoint(actor, input.id, tx, true);
    const now = clock.now();
    const isActive = input.isActive ?? row.is_active;
    const [updated] = await db().query<EndpointRow>(
      `UPDATE webhook_endpoints
          SET url = :url, event_types = CAST(:types AS text[]), description = :description, is_active = :isActive,
              disabled_reason = :disabledReason, updated_at = :now
        WHERE id = :id RETURNING *`,
      {
        replacements: {
          id: row.id,
          url: input.url ?? row.url,
          types: typesLiteral(input.eventTypes ?? row.event_types),
          description: input.description === undefined ? row.description : input.description || null,
          isActive,
          disabledReason: isActive ? null : row.is_active ? null : row.disabled_reason,
          now,
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    if (row.is_active && !isActive) await failPendingDeliveries(tx, [row.id], 'the endpoint was disabled', now);
    return presentEndpoint(updated);
  });
}

/** Removes the endpoint and its deliveries (pending ones included: nothing more is sent to it). */
export async function deleteEndpoint(actor: Actor, id: string): Promise<{ success: true }> {
  return transaction(async (tx) => {
    const row = await loadEndpoint(actor, id, tx, true);
    await db().query('DELETE FROM webhook_endpoints WHERE id = :id', { replacements: { id: row.id }, transaction: tx });
    return { success: true as const };
  });
}

/**
 * Issues a new secret, returned in this response only. For 24 hours the previous one signs too
 * (a second signature in `webhook-signature`), so receivers can switch without losing deliveries.
 */
export async function rotateSecret(actor: Actor, id: string): Promise<WebhookEndpointWithSecret> {
  return transaction(async (tx) => {
    const row = await loadEndpoint(actor, id, tx, true);
    const secret = newSecret();
    const now = clock.now();
    const [updated] = await db().query<EndpointRow>(
      `UPDATE webhook_endpoints
          SET previous_secret_ciphertext = :previous_secret_ciphertext, previous_secret_iv = :previous_secret_iv,
              previous_secret_tag = :previous_secret_tag, previous_secret_kid = :previous_secret_kid, secret_rotated_at = :now,
              secret_ciphertext = :secret_ciphertext, secret_iv = :secret_iv, secret_tag = :secret_tag, secret_kid = :secret_kid,
              updated_at = :now
        WHERE id = :id RETURNING *`,
      {
        replacements: {
          id: row.id,
          now,
          ...sealedSecretColumns(row.id, secret),
          ...sealedSecretColumns(row.id, openSecret(row.id, row), 'previous_secret'),
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return { ...presentEndpoint(updated), secret };
  });
}
