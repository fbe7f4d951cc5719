import { QueryTypes, type Transaction } from 'sequelize';
import { db } from '../db/database.js';
import { badRequest } from './errors.js';

/**
 * A project list given in a body (an API key's or an integration's `projectIds`): each id must be
 * one of the workspace's projects (400 otherwise, CONTRACT §2); empty means the whole workspace.
 * Returns the ids once each, in order.
 */
export async function checkedProjectIds(tx: Transaction, workspaceId: number, ids: readonly number[]): Promise<number[]> {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  if (unique.length === 0) return [];
  const rows = await db().query<{ id: number }>('SELECT id FROM projects WHERE workspace_id = :ws AND id IN (:ids)', {
    replacements: { ws: workspaceId, ids: unique },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  const found = new Set(rows.map((r) => r.id));
  const missing = unique.find((id) => !found.has(id));
  if (missing !== undefined) throw badRequest(`Project ${missing} is not a project of this workspace`);
  return unique;
}
