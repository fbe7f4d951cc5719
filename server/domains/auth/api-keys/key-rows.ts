import { lockById } from '../../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { ApiKeyObject } from '../../../../shared/contracts/api-keys.js';

export type ApiKeyRow = {
  id: string;
  workspace_id: number;
  name: string;
  prefix: string;
  permissions: string[];
  project_ids: number[];
  created_by: string | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

/** The columns a response may carry (never a hash). */
export const KEY_COLUMNS = `id, workspace_id, name, prefix, permissions, project_ids, created_by, created_at, expires_at, last_used_at, revoked_at`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentApiKey(row: ApiKeyRow): ApiKeyObject {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    prefix: row.prefix,
    permissions: [...row.permissions].sort(),
    projectIds: row.project_ids.map(Number).sort((a, b) => a - b),
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
  };
}

/** A key of a workspace the actor is a member of, else 404 (never revealing that it exists); locked when `tx` is given. */
export async function findApiKey(actor: Actor, id: string, tx?: Transaction): Promise<ApiKeyRow> {
  const rows = await db().query<ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = :id${tx ? await lockById('api_keys', id, tx, 'FOR UPDATE') : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  const row = rows[0];
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('API key');
  return row;
}
