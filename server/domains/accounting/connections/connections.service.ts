import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { ConnectionObject, CreateConnectionInput, UpdateConnectionInput } from '../../../../shared/contracts/accounting.js';
import { intArrayLiteral } from '../pg-arrays.js';
import { listConnectionRows, loadConnection, lockConnection, presentConnection, type ConnectionRow } from './connection-rows.js';
import { assertConfig, assertCredentials, assertCron } from './connection-rules.js';
import { checkedProjectIds } from '../../../lib/project-ids.js';
import { assertPublicBaseUrl } from '../providers/address-guard.js';
import { sealCredentials, sealedColumns, sealWebhookSecret } from './connection-secrets.js';

type ConfigInput = { webhookSecret?: string | null; baseUrl?: string; [k: string]: unknown };

/** Config as stored: everything but `webhookSecret`, which is kept encrypted in its own columns. */
function storedConfig(config: ConfigInput): Record<string, unknown> {
  const { webhookSecret: _secret, ...rest } = config;
  return rest;
}

export async function createConnection(actor: Actor, input: CreateConnectionInput): Promise<ConnectionObject> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  const config = storedConfig(input.config ?? {});
  assertConfig(input.providerType, config);
  await assertPublicBaseUrl(config.baseUrl);
  assertCredentials(input.providerType, input.credentials);
  assertCron(input.syncScheduleCron);
  return transaction(async (tx) => {
    const projectIds = await checkedProjectIds(tx, input.workspaceId, input.projectIds ?? []);
    const id = randomUUID();
    const secret = input.config?.webhookSecret;
    const [row] = await db().query<ConnectionRow>(
      `INSERT INTO accounting_connections
         (id, workspace_id, provider_type, name,
          credentials_ciphertext, credentials_iv, credentials_tag, credentials_kid,
          webhook_secret_ciphertext, webhook_secret_iv, webhook_secret_tag, webhook_secret_kid,
          config, sync_mode, require_review, require_completeness_for_sync, sync_schedule_cron, project_ids,
          created_at, updated_at)
       VALUES (:id, :ws, :providerType, :name,
               :credentials_ciphertext, :credentials_iv, :credentials_tag, :credentials_kid,
               :webhook_secret_ciphertext, :webhook_secret_iv, :webhook_secret_tag, :webhook_secret_kid,
               :config, :syncMode, :requireReview, :requireCompleteness, :cron, CAST(:projectIds AS int[]), :now, :now)
       RETURNING *`,
      {
        replacements: {
          id,
          ws: input.workspaceId,
          providerType: input.providerType,
          name: input.name,
          ...sealedColumns('credentials', sealCredentials(id, input.credentials)),
          ...sealedColumns('webhook_secret', secret ? sealWebhookSecret(id, secret) : null),
          config: JSON.stringify(config),
          syncMode: input.syncMode ?? 'MANUAL_PUSH',
          requireReview: input.requireReview ?? true,
          requireCompleteness: input.requireCompletenessForSync ?? true,
          cron: input.syncScheduleCron ?? null,
          projectIds: intArrayLiteral(projectIds),
          now: clock.now(),
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return presentConnection(row);
  });
}

export async function listConnections(actor: Actor, workspaceId: number): Promise<ConnectionObject[]> {
  scope.requireWorkspaceMember(actor, workspaceId);
  return (await listConnectionRows(workspaceId)).map(presentConnection);
}

export const getConnection = async (actor: Actor, id: string): Promise<ConnectionObject> =>
  presentConnection(await loadConnection(actor, id));

/**
 * Partial update. `credentials` replace the stored ones; `config` replaces the stored config,
 * except `config.webhookSecret`: a string sets it, null clears it, leaving it out keeps it.
 */
export async function updateConnection(actor: Actor, input: UpdateConnectionInput): Promise<ConnectionObject> {
  assertCron(input.syncScheduleCron);
  await assertPublicBaseUrl(input.config?.baseUrl);
  return transaction(async (tx) => {
    const row = await lockConnection(actor, input.id, tx);
    const sets: string[] = [];
    const values: Record<string, unknown> = {};
    const set = (column: string, value: unknown, expression = (placeholder: string) => placeholder) => {
      sets.push(`${column} = ${expression(`:${column}`)}`);
      values[column] = value;
    };
    if (input.name !== undefined) set('name', input.name);
    if (input.syncMode !== undefined) set('sync_mode', input.syncMode);
    if (input.requireReview !== undefined) set('require_review', input.requireReview);
    if (input.requireCompletenessForSync !== undefined) set('require_completeness_for_sync', input.requireCompletenessForSync);
    if (input.syncScheduleCron !== undefined) set('sync_schedule_cron', input.syncScheduleCron);
    if (input.isActive !== undefined) set('is_active', input.isActive);
    if (input.projectIds !== undefined) {
      const ids = await checkedProjectIds(tx, row.workspace_id, input.projectIds);
      set('project_ids', intArrayLiteral(ids), (p) => `CAST(${p} AS int[])`);
    }
    if (input.config !== undefined) {
      const config = storedConfig(input.config);
      assertConfig(row.provider_type, config);
      set('config', JSON.stringify(config));
      const secret = input.config.webhookSecret;
      if (secret !== undefined) {
        for (const [column, value] of Object.entries(sealedColumns('webhook_secret', secret ? sealWebhookSecret(row.id, secret) : null))) {
          set(column, value);
        }
      }
    }
    if (input.credentials !== undefined) {
      assertCredentials(row.provider_type, input.credentials);
      for (const [column, value] of Object.entries(sealedColumns('credentials', sealCredentials(row.id, input.credentials)))) {
        set(column, value);
      }
    }
    if (sets.length === 0) return presentConnection(row);
    const [updated] = await db().query<ConnectionRow>(
      `UPDATE accounting_connections SET ${[...sets, 'updated_at = :now'].join(', ')} WHERE id = :id RETURNING *`,
      { replacements: { ...values, id: row.id, now: clock.now() }, type: QueryTypes.SELECT, transaction: tx },
    );
    return presentConnection(updated);
  });
}

/** DELETE deactivates: an inactive connection cannot push, pull, take reviews or webhooks. */
export async function deactivateConnection(actor: Actor, id: string): Promise<{ success: true }> {
  await transaction(async (tx) => {
    await lockConnection(actor, id, tx);
    await db().query('UPDATE accounting_connections SET is_active = false, updated_at = :now WHERE id = :id', {
      replacements: { id, now: clock.now() },
      transaction: tx,
    });
  });
  return { success: true };
}
