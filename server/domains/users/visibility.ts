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

/**
 * Through an API key only the key's workspace exists (CONTRACT §4, §19): the members (workspace or project) of it,
 * never its creator's other users — neither the creator as such nor the users it created.
 */
const VISIBLE_TO_KEY = `
  SELECT u.id FROM users u
   WHERE (u.id IN (SELECT user_id FROM workspace_members WHERE workspace_id = ANY(CAST($ws AS integer[])))
      OR u.id IN (SELECT user_id FROM project_members WHERE workspace_id = ANY(CAST($ws AS integer[]))))`;

/** The workspace a key reaches (as a member, or through its projects); for a person, those it is a full member of. */
function workspacesOf(actor: Actor): number[] {
  if (actor.kind !== 'API_KEY') return [...actor.workspaceIds];
  return [...new Set([...actor.workspaceIds, ...actor.projectWorkspace.values()])];
}

async function visibleIds(actor: Actor, tx: Transaction, only?: string): Promise<string[]> {
  const byKey = actor.kind === 'API_KEY';
  const base = byKey ? VISIBLE_TO_KEY : VISIBLE_USERS;
  const sql = only ? `${base} AND u.id = $only` : base;
  const bind: Record<string, unknown> = byKey ? { ws: workspacesOf(actor) } : { me: actor.userId, ws: workspacesOf(actor) };
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
