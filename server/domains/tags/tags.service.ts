import { Op, col, fn, where } from 'sequelize';
import { findByPkLocked } from '../../db/distributed.js';
import { transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { Tag } from '../../db/models/index.js';
import { conflict, notFound, quotedValue } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { CreateTagInput, TagObject, UpdateTagInput } from '../../../shared/contracts/tags.js';

export const presentTag = (t: Tag): TagObject => ({
  id: t.id,
  workspaceId: t.workspaceId,
  name: t.name,
  color: t.color,
  archivedAt: t.archivedAt ? t.archivedAt.toISOString() : null,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
});

/** Names of usable (not archived) tags are unique per workspace, ignoring case (409). */
async function assertNameFree(workspaceId: number, name: string, tx: Transaction, exceptId?: number): Promise<void> {
  const others = exceptId ? { id: { [Op.ne]: exceptId } } : {};
  const sameName = where(fn('lower', col('name')), name.toLowerCase());
  const existing = await Tag.findOne({ where: { workspaceId, archivedAt: null, ...others, [Op.and]: [sameName] }, transaction: tx });
  if (existing) throw conflict(`A tag named ${quotedValue(name)} already exists in this workspace`);
}

/** A usable tag the actor may change; an archived one is gone for writes (404). */
async function loadTag(actor: Actor, id: number, tx: Transaction): Promise<Tag> {
  const tag = scope.workspaceObject(actor, await findByPkLocked(Tag, id, tx), 'Tag');
  if (tag.archivedAt) throw notFound('Tag');
  return tag;
}

export async function listTags(actor: Actor, input: { workspaceId: number; includeArchived?: boolean }): Promise<TagObject[]> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  const usable = input.includeArchived ? {} : { archivedAt: null };
  return (await Tag.findAll({ where: { workspaceId: input.workspaceId, ...usable }, order: [['id', 'ASC']] })).map(presentTag);
}

export async function createTag(actor: Actor, input: CreateTagInput): Promise<TagObject> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return transaction(async (tx) => {
    await assertNameFree(input.workspaceId, input.name, tx);
    const tag = await Tag.create({ workspaceId: input.workspaceId, name: input.name, color: input.color ?? null }, { transaction: tx });
    return presentTag(tag);
  });
}

export async function updateTag(actor: Actor, input: UpdateTagInput): Promise<TagObject> {
  return transaction(async (tx) => {
    const tag = await loadTag(actor, input.id, tx);
    if (input.name !== undefined) {
      await assertNameFree(tag.workspaceId, input.name, tx, tag.id);
      tag.name = input.name;
    }
    if (input.color !== undefined) tag.color = input.color;
    await tag.save({ transaction: tx });
    return presentTag(tag);
  });
}

/**
 * CONTRACT §4: deleting a tag archives it. It leaves GET /tags, cannot be added to entries any
 * more, and stays on the entries that carry it (history is never rewritten); its name is free.
 * An archived tag is not found by writes again (404).
 */
export async function deleteTag(actor: Actor, input: { id: number }): Promise<{ success: true }> {
  return transaction(async (tx) => {
    const tag = await loadTag(actor, input.id, tx);
    tag.archivedAt = clock.now();
    await tag.save({ transaction: tx });
    return { success: true as const };
  });
}
