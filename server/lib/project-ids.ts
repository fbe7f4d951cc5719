import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../db/database.js';
import { badRequest } from './errors.js';

/**
 * A project list given in a body (a connection's, an API key's or an integration's `projectIds`):
 * every id must be a project of the workspace (400 naming the others, CONTRACT §2); returns them
 * once each, ascending (empty: the whole workspace, where the caller means that).
 */
export async function checkedProjectIds(tx: Transaction, workspaceId: number, ids: readonly number[]): Promise<number[]> {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  if (unique.length === 0) return [];
  const rows = await db().query<{ id: number }>('SELECT id FROM projects WHERE workspace_id = :ws AND id IN (:ids)', {
    replacements: { ws: workspaceId, ids: unique },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  const known = new Set(rows.map((r) => r.id));
  const foreign = unique.filter((id) => !known.has(id));
  if (foreign.length) throw badRequest(`projectIds are not projects of this workspace: ${foreign.join(', ')}`);
  return unique;
}
