import { db, transaction, type Transaction } from '../../db/database.js';
import { onCitus } from '../../db/distributed.js';
import { User } from '../../db/models/index.js';
import { badRequest, conflict, forbidden, unauthorized } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import type { CreateUserInput, UpdateUserInput, UserObject } from '../../../shared/contracts/users.js';
import { hashPassword, revokeSessionsOf, verifyPassword } from '../auth/index.js';
import { presentUser } from './users.presenter.js';
import { assertCoversMemberships } from './takeover.js';
import { findVisibleUser, visibleUsers } from './visibility.js';

export { findVisibleUser };

/**
 * On Citus (CONTRACT §24) users and sessions are coordinator tables, and Citus refuses to write one after a
 * parallel multi-shard statement in the same transaction ("cannot modify table users because there was a
 * parallel operation on a distributed table"). Who may see a user and which workspaces and projects it belongs
 * to are read across shards (a user is in no one workspace), and must be read before the user is locked and
 * written, so there those reads run over one connection per worker. Nothing changes on plain PostgreSQL.
 */
async function crossShardReadsBeforeUserWrites(tx: Transaction): Promise<void> {
  if (await onCitus()) await db().query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`, { transaction: tx });
}

const uniqueSorted = (values: readonly string[]) => [...new Set(values)].sort();

/** A caller grants (and takes away) only permissions it holds itself (403). */
function assertCanGrant(actor: Actor, permissions: readonly string[]): void {
  const missing = permissions.filter((p) => !actor.permissions.has(p));
  if (missing.length) throw forbidden(`Cannot grant or revoke permissions you do not hold: ${missing.join(', ')}`);
}

/** Nobody resets the password of, or deactivates, a user holding permissions they lack. */
function assertOutranks(actor: Actor, target: User): void {
  if (target.id === actor.userId) return;
  if (target.permissions.some((p) => !actor.permissions.has(p))) {
    throw forbidden('Cannot change the password or active state of a user holding permissions you do not hold');
  }
}

/** Fields a person changes on itself without user.edit (CONTRACT §4); `permissions` and `isActive` always need it. */
const PRIVILEGED_FIELDS = ['permissions', 'isActive'];

/** Whether a (not yet validated) PATCH /users/{id} input changes only the caller's own name and password. */
export function isOwnProfileChange(actor: Actor, raw: unknown): boolean {
  if (!raw || typeof raw !== 'object') return false;
  const input = raw as Record<string, unknown>;
  return input.id === actor.userId && !PRIVILEGED_FIELDS.some((f) => f in input);
}

export async function listUsers(actor: Actor): Promise<UserObject[]> {
  return transaction(async (tx) => (await visibleUsers(actor, tx)).map(presentUser));
}

export async function createUser(actor: Actor, input: CreateUserInput): Promise<UserObject> {
  const email = input.email.trim().toLowerCase();
  const permissions = uniqueSorted(input.permissions);
  assertCanGrant(actor, permissions);
  const passwordHash = await hashPassword(input.password);
  return transaction(async (tx) => {
    if (await User.findOne({ where: { email }, transaction: tx })) throw conflict('A user with this email already exists');
    const user = await User.create(
      { email, name: input.name, passwordHash, permissions, isActive: true, createdBy: actor.userId },
      { transaction: tx },
    );
    return presentUser(user);
  });
}

/** One's own password changes only with the current one (400 missing, 401 wrong). */
async function assertCurrentPassword(user: User, currentPassword: string | undefined): Promise<void> {
  if (currentPassword === undefined) throw badRequest('currentPassword is required to change your own password');
  if (!(await verifyPassword(user.passwordHash, currentPassword))) throw unauthorized('currentPassword is wrong');
}

export async function updateUser(actor: Actor, input: UpdateUserInput): Promise<UserObject> {
  return transaction(async (tx) => {
    await crossShardReadsBeforeUserWrites(tx);
    const user = await findVisibleUser(actor, input.id, tx, { lock: true });
    if (input.isActive === false && user.id === actor.userId) throw conflict('You cannot deactivate yourself');
    await assertCoversMemberships(actor, user.id, tx);
    if (input.password !== undefined && user.id === actor.userId) await assertCurrentPassword(user, input.currentPassword);
    if (input.password !== undefined || input.isActive !== undefined) assertOutranks(actor, user);
    if (input.permissions) {
      const permissions = uniqueSorted(input.permissions);
      const added = permissions.filter((p) => !user.permissions.includes(p));
      const removed = user.permissions.filter((p) => !permissions.includes(p));
      assertCanGrant(actor, [...added, ...removed]);
      user.permissions = permissions;
    }
    if (input.name !== undefined) user.name = input.name;
    if (input.isActive !== undefined) user.isActive = input.isActive;
    if (input.password !== undefined) user.passwordHash = await hashPassword(input.password);
    await user.save({ transaction: tx });
    if (input.isActive === false) await revokeSessionsOf(user.id, tx);
    else if (input.password !== undefined) await revokeSessionsOf(user.id, tx, user.id === actor.userId ? actor.sessionId : undefined);
    return presentUser(user);
  });
}

/** DELETE deactivates (the user's history stays) and revokes every session. */
export async function deactivateUser(actor: Actor, input: { id: string }): Promise<{ success: true }> {
  return transaction(async (tx) => {
    await crossShardReadsBeforeUserWrites(tx);
    const user = await findVisibleUser(actor, input.id, tx, { lock: true });
    if (user.id === actor.userId) throw conflict('You cannot deactivate yourself');
    await assertCoversMemberships(actor, user.id, tx);
    assertOutranks(actor, user);
    user.isActive = false;
    await user.save({ transaction: tx });
    await revokeSessionsOf(user.id, tx);
    return { success: true as const };
  });
}
