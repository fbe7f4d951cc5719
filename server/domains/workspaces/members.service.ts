import { transaction } from '../../db/database.js';
import { User, WorkspaceMember } from '../../db/models/index.js';
import { conflict, notFound } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import type { AddMemberInput, MemberObject, RemoveMemberInput } from '../../../shared/contracts/workspaces.js';
import { findVisibleUser } from '../users/index.js';
import { presentMember } from './presenters.js';
import { memberWorkspace } from './workspaces.service.js';

export async function listMembers(actor: Actor, input: { id: number }): Promise<MemberObject[]> {
  return transaction(async (tx) => {
    await memberWorkspace(actor, input.id, tx);
    const members = await WorkspaceMember.findAll({ where: { workspaceId: input.id }, order: [['userId', 'ASC']], transaction: tx });
    const users = new Map((await User.findAll({ where: { id: members.map((m) => m.userId) }, transaction: tx })).map((u) => [u.id, u]));
    return members.map((m) => presentMember(users.get(m.userId)!, m));
  });
}

/** Adds a user the caller can see (unknown, invisible or inactive: 404; already a member: 409). */
export async function addMember(actor: Actor, input: AddMemberInput): Promise<MemberObject> {
  return transaction(async (tx) => {
    await memberWorkspace(actor, input.id, tx, { lock: true });
    const user = await findVisibleUser(actor, input.userId, tx);
    if (!user.isActive) throw notFound('User');
    const existing = await WorkspaceMember.findOne({ where: { workspaceId: input.id, userId: user.id }, transaction: tx });
    if (existing) throw conflict('The user is already a member of this workspace');
    const member = await WorkspaceMember.create({ workspaceId: input.id, userId: user.id }, { transaction: tx });
    return presentMember(user, member);
  });
}

/** Removes a member; a workspace keeps at least one member (409). */
export async function removeMember(actor: Actor, input: RemoveMemberInput): Promise<{ success: true }> {
  return transaction(async (tx) => {
    await memberWorkspace(actor, input.id, tx, { lock: true });
    const member = await WorkspaceMember.findOne({ where: { workspaceId: input.id, userId: input.userId }, transaction: tx });
    if (!member) throw notFound('Member');
    if ((await WorkspaceMember.count({ where: { workspaceId: input.id }, transaction: tx })) <= 1) {
      throw conflict('A workspace must keep at least one member');
    }
    await member.destroy({ transaction: tx });
    return { success: true as const };
  });
}
