import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { conflict } from '../../lib/errors.js';
import { creatorOf, scope, type Actor } from '../../lib/scope.js';
import type { CreateIntegrationInput, IntegrationObject, IntegrationWithKey } from '../../../shared/contracts/integrations.js';
import { newApiKey } from './api-keys.js';
import { lockIntegration, presentIntegration, type IntegrationRow } from './integration-rows.js';
import { checkedProjectIds } from '../../lib/project-ids.js';

/** Creates the integration with its own entry source; the API key is returned once and only its hash is kept. */
export async function createIntegration(actor: Actor, input: CreateIntegrationInput): Promise<IntegrationWithKey> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return transaction(async (tx) => {
    const projectIds = await checkedProjectIds(tx, input.workspaceId, input.projectIds ?? []);
    const id = randomUUID();
    const key = newApiKey();
    const now = clock.now();
    const [source] = await db().query<{ id: number }>(
      `INSERT INTO entry_sources (workspace_id, kind, name, integration_id, created_at)
       VALUES (:ws, 'INTEGRATION', :name, :id, :now) RETURNING id`,
      { replacements: { ws: input.workspaceId, name: input.name, id, now }, type: QueryTypes.SELECT, transaction: tx },
    );
    const [row] = await db().query<IntegrationRow>(
      `INSERT INTO integrations (id, workspace_id, name, project_ids, key_prefix, key_hash, entry_source_id, created_by, created_at, updated_at)
       VALUES (:id, :ws, :name, CAST(:projectIds AS int[]), :prefix, :hash, :sourceId, :createdBy, :now, :now) RETURNING *`,
      {
        replacements: {
          id,
          ws: input.workspaceId,
          name: input.name,
          projectIds: `{${projectIds.join(',')}}`,
          prefix: key.prefix,
          hash: key.hash,
          sourceId: source.id,
          createdBy: creatorOf(actor),
          now,
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return { ...presentIntegration(row), apiKey: key.key };
  });
}

export async function listIntegrations(actor: Actor, workspaceId: number): Promise<IntegrationObject[]> {
  scope.requireWorkspaceMember(actor, workspaceId);
  const rows = await db().query<IntegrationRow>('SELECT * FROM integrations WHERE workspace_id = :ws ORDER BY created_at, id', {
    replacements: { ws: workspaceId },
    type: QueryTypes.SELECT,
  });
  return rows.map(presentIntegration);
}

/** Revokes the integration: its key stops working at once. A revoked integration cannot be revoked again (409). */
export async function revokeIntegration(actor: Actor, id: string): Promise<{ success: true }> {
  return transaction(async (tx) => {
    const row = await lockIntegration(actor, id, tx);
    if (!row.is_active) throw conflict('The integration is already revoked');
    const now = clock.now();
    await db().query('UPDATE integrations SET is_active = false, revoked_at = :now, updated_at = :now WHERE id = :id', {
      replacements: { id, now },
      transaction: tx,
    });
    return { success: true as const };
  });
}

/** Replaces the key: the old one is refused from the moment this commits. Revoked integrations: 409. */
export async function rotateIntegrationKey(actor: Actor, id: string): Promise<IntegrationWithKey> {
  return transaction(async (tx) => {
    const row = await lockIntegration(actor, id, tx);
    if (!row.is_active) throw conflict('A revoked integration has no key to rotate');
    const key = newApiKey();
    const [updated] = await db().query<IntegrationRow>(
      'UPDATE integrations SET key_prefix = :prefix, key_hash = :hash, updated_at = :now WHERE id = :id RETURNING *',
      { replacements: { id, prefix: key.prefix, hash: key.hash, now: clock.now() }, type: QueryTypes.SELECT, transaction: tx },
    );
    return { ...presentIntegration(updated), apiKey: key.key };
  });
}
