import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { User } from '../../db/models/index.js';
import { notFound } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';

/**
 * Users an actor may see and manage: itself, the users it created, and the members
 * (workspace or project) of the workspaces it is a full member of.
 */
const VISIBLE_USERS = `
  SELECT u.id FROM users u
   WHERE (u.id = $me
      OR u.created_by = $me
      OR u.id IN (SELECT user_id FROM workspace_members WHERE workspace_id = ANY(CAST($ws AS integer[])))
      OR u.id IN (SELECT user_id FROM project_members WHERE workspace_id = ANY(CAST($ws AS integer[]))))`;

async function visibleIds(actor: Actor, tx: Transaction, only?: string): Promise<string[]> {
  const sql = only ? `${VISIBLE_USERS} AND u.id = $only` : VISIBLE_USERS;
  const bind: Record<string, unknown> = { me: actor.userId, ws: [...actor.workspaceIds] };
  if (only) bind.only = only;
  const rows = await db().query<{ id: string }>(sql, { bind, type: QueryTypes.SELECT, transaction: tx });
  return rows.map((r) => r.id);
}

export async function visibleUsers(actor: Actor, tx: Transaction): Promise<User[]> {
  const ids = await visibleIds(actor, tx);
  return User.findAll({ where: { id: ids }, order: [['id', 'ASC']], transaction: tx });
}

/** The user when the actor may see it, else 404 (never revealing that it exists). */
export async function findVisibleUser(actor: Actor, userId: string, tx: Transaction, opts: { lock?: boolean } = {}): Promise<User> {
  const [id] = await visibleIds(actor, tx, userId);
  const user = id ? await User.findByPk(id, { transaction: tx, lock: opts.lock ? tx.LOCK.UPDATE : undefined }) : null;
  if (!user) throw notFound('User');
  return user;
}
