import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import type { Actor } from '../../../lib/scope.js';
import type { ProjectRoute } from '../../../../shared/contracts/accounting.js';
import { loadConnection, lockConnection } from '../connections/connection-rows.js';
import { checkedProjectIds } from '../../../lib/project-ids.js';
import { intArrayLiteral } from '../pg-arrays.js';

async function routesOf(projectIds: number[], tx?: Transaction): Promise<ProjectRoute[]> {
  if (projectIds.length === 0) return [];
  return db().query<ProjectRoute>(
    `SELECT id AS "projectId", name AS "projectName" FROM projects WHERE id = ANY (CAST(:ids AS int[])) ORDER BY id`,
    { replacements: { ids: intArrayLiteral(projectIds) }, type: QueryTypes.SELECT, transaction: tx },
  );
}

/** The connection's explicit project list (empty = the connection routes every project of its workspace). */
export async function getProjectRouting(actor: Actor, connectionId: string): Promise<ProjectRoute[]> {
  const connection = await loadConnection(actor, connectionId);
  return routesOf(connection.project_ids);
}

/** Replaces the connection's `projectIds`; every id must be a project of its workspace (400). */
export async function setProjectRouting(actor: Actor, input: { connectionId: string; projectIds: number[] }): Promise<ProjectRoute[]> {
  return transaction(async (tx) => {
    const connection = await lockConnection(actor, input.connectionId, tx);
    const ids = await checkedProjectIds(tx, connection.workspace_id, input.projectIds);
    await db().query('UPDATE accounting_connections SET project_ids = CAST(:ids AS int[]), updated_at = :now WHERE id = :id', {
      replacements: { id: connection.id, ids: intArrayLiteral(ids), now: clock.now() },
      transaction: tx,
    });
    return routesOf(ids, tx);
  });
}
