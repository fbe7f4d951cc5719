import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { badRequest, conflict, forbidden } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { ApiKeyObject, ApiKeyWithSecret, CreateApiKeyInput, RotateApiKeyInput } from '../../../../shared/contracts/api-keys.js';
import { newAppKey } from './key-format.js';
import { findApiKey, KEY_COLUMNS, presentApiKey, type ApiKeyRow } from './key-rows.js';
import { checkedProjectIds } from '../../../lib/project-ids.js';

/** CONTRACT §19: a full member of the workspace, giving only permissions it holds itself; the secret is shown once. */
export async function createApiKey(actor: Actor, input: CreateApiKeyInput): Promise<ApiKeyWithSecret> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  const permissions = [...new Set(input.permissions)].sort();
  const missing = permissions.filter((p) => !actor.permissions.has(p));
  if (missing.length) throw forbidden(`Cannot give an API key permissions you do not hold: ${missing.join(', ')}`);
  const now = clock.now();
  const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt);
  if (expiresAt && expiresAt.getTime() <= now.getTime()) throw badRequest('expiresAt must lie in the future');
  return transaction(async (tx) => {
    const projectIds = await checkedProjectIds(tx, input.workspaceId, input.projectIds ?? []);
    const key = newAppKey();
    const [row] = await db().query<ApiKeyRow>(
      `INSERT INTO api_keys (workspace_id, name, prefix, key_hash, permissions, project_ids, created_by, created_at, expires_at)
       VALUES (:ws, :name, :prefix, :hash, CAST(:permissions AS text[]), CAST(:projectIds AS int[]), :createdBy, :now, :expiresAt)
       RETURNING ${KEY_COLUMNS}`,
      {
        replacements: {
          ws: input.workspaceId,
          name: input.name,
          prefix: key.prefix,
          hash: key.hash,
          permissions: `{${permissions.join(',')}}`,
          projectIds: `{${projectIds.join(',')}}`,
          createdBy: actor.userId,
          now,
          expiresAt,
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return { ...presentApiKey(row), apiKey: key.key };
  });
}

export async function listApiKeys(actor: Actor, workspaceId: number): Promise<ApiKeyObject[]> {
  scope.requireWorkspaceMember(actor, workspaceId);
  const rows = await db().query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE workspace_id = :ws ORDER BY created_at, id`, {
    replacements: { ws: workspaceId },
    type: QueryTypes.SELECT,
  });
  return rows.map(presentApiKey);
}

export const getApiKey = async (actor: Actor, id: string): Promise<ApiKeyObject> => presentApiKey(await findApiKey(actor, id));

/** Revoked at once: its next call is a 401 on every instance (keys are read on every request). */
export async function revokeApiKey(actor: Actor, id: string): Promise<{ success: true }> {
  return transaction(async (tx) => {
    const row = await findApiKey(actor, id, tx);
    if (row.revoked_at) throw conflict('The API key is already revoked');
    await db().query(
      'UPDATE api_keys SET revoked_at = :now, previous_key_hash = NULL, previous_key_until = NULL WHERE id = :id AND workspace_id = :ws',
      { replacements: { id, ws: row.workspace_id, now: clock.now() }, transaction: tx },
    );
    return { success: true as const };
  });
}

/** A new secret; the old one keeps working for `graceSeconds` (0: stops at once), replacing any earlier grace. */
export async function rotateApiKey(actor: Actor, input: RotateApiKeyInput): Promise<ApiKeyWithSecret> {
  return transaction(async (tx) => {
    const row = await findApiKey(actor, input.id, tx);
    if (row.revoked_at) throw conflict('A revoked API key cannot be rotated');
    const key = newAppKey();
    const graceUntil = input.graceSeconds > 0 ? new Date(clock.now().getTime() + input.graceSeconds * 1000) : null;
    const [updated] = await db().query<ApiKeyRow>(
      `UPDATE api_keys SET previous_key_hash = CASE WHEN CAST(:until AS timestamptz) IS NULL THEN NULL ELSE key_hash END,
              previous_key_until = :until, key_hash = :hash, prefix = :prefix
        WHERE id = :id AND workspace_id = :ws RETURNING ${KEY_COLUMNS}`,
      {
        replacements: { id: input.id, ws: row.workspace_id, hash: key.hash, prefix: key.prefix, until: graceUntil },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return { ...presentApiKey(updated), apiKey: key.key };
  });
}
