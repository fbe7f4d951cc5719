import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { forbidden } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';

type Memberships = { workspace_ids: number[]; projects: [number, number][] };

/**
 * CONTRACT §4: changing or deactivating another user needs membership of every workspace that
 * user belongs to and reach of every project it is a project member of (403 otherwise), so an
 * account shared with a workspace the caller cannot see is never taken over through another one.
 */
export async function assertCoversMemberships(actor: Actor, targetId: string, tx: Transaction): Promise<void> {
  if (targetId === actor.userId) return;
  const [row] = await db().query<Memberships>(
    `SELECT ARRAY(SELECT workspace_id FROM workspace_members WHERE user_id = $id) AS workspace_ids,
            COALESCE((SELECT json_agg(json_build_array(project_id, workspace_id)) FROM project_members WHERE user_id = $id), '[]') AS projects`,
    { bind: { id: targetId }, type: QueryTypes.SELECT, transaction: tx },
  );
  const outside =
    row.workspace_ids.some((ws) => !actor.workspaceIds.has(ws)) ||
    row.projects.some(([projectId, ws]) => !actor.workspaceIds.has(ws) && actor.projectWorkspace.get(projectId) !== ws);
  if (outside) throw forbidden('This user belongs to a workspace or project you are not a member of');
}
