import { lockById } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { iso } from '../../lib/dates.js';
import { notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { IntegrationObject } from '../../../shared/contracts/integrations.js';

export type IntegrationRow = {
  id: string;
  workspace_id: number;
  name: string;
  project_ids: number[];
  key_prefix: string;
  key_hash: string;
  entry_source_id: number;
  is_active: boolean;
  revoked_at: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
};

/** The contract's integration object: never the key hash. */
export const presentIntegration = (r: IntegrationRow): IntegrationObject => ({
  id: r.id,
  workspaceId: r.workspace_id,
  name: r.name,
  projectIds: r.project_ids.map(Number),
  keyPrefix: r.key_prefix,
  entrySourceId: r.entry_source_id,
  isActive: r.is_active,
  revokedAt: iso(r.revoked_at),
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

/** The integration locked for a change, or 404 when absent or in a workspace the caller is not a member of. */
export async function lockIntegration(actor: Actor, id: string, tx: Transaction): Promise<IntegrationRow> {
  const rows = await db().query<IntegrationRow>(
    `SELECT * FROM integrations WHERE id = :id${await lockById('integrations', id, tx, 'FOR UPDATE')}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  const row = rows[0];
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('Integration');
  return row;
}
