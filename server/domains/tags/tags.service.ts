import { Op, col, fn, where } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { Tag } from '../../db/models/index.js';
import { conflict } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { CreateTagInput, TagObject, UpdateTagInput } from '../../../shared/contracts/tags.js';

export const presentTag = (t: Tag): TagObject => ({
  id: t.id,
  workspaceId: t.workspaceId,
  name: t.name,
  color: t.color,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
});

/** Tag names are unique per workspace, ignoring case (409). */
async function assertNameFree(workspaceId: number, name: string, tx: Transaction, exceptId?: number): Promise<void> {
  const others = exceptId ? { id: { [Op.ne]: exceptId } } : {};
  const sameName = where(fn('lower', col('name')), name.toLowerCase());
  const existing = await Tag.findOne({ where: { workspaceId, ...others, [Op.and]: [sameName] }, transaction: tx });
  if (existing) throw conflict(`A tag named "${name}" already exists in this workspace`);
}

const loadTag = async (actor: Actor, id: number, tx: Transaction) =>
  scope.workspaceObject(actor, await Tag.findByPk(id, { transaction: tx, lock: tx.LOCK.UPDATE }), 'Tag');

export async function listTags(actor: Actor, input: { workspaceId: number }): Promise<TagObject[]> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return (await Tag.findAll({ where: { workspaceId: input.workspaceId }, order: [['id', 'ASC']] })).map(presentTag);
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

/** Deletes the tag; rows linking it to entries are removed by their foreign key's ON DELETE CASCADE. */
export async function deleteTag(actor: Actor, input: { id: number }): Promise<{ success: true }> {
  return transaction(async (tx) => {
    const tag = await loadTag(actor, input.id, tx);
    // the cascade re-ranks the other tags of the same entries (migration 0006): lock those entries
    // in id order first, or two deletes sharing entries deadlock (a 500, found by the fuzzer)
    await db().query('SELECT id FROM entries WHERE id IN (SELECT entry_id FROM entry_tags WHERE tag_id = :id) ORDER BY id FOR UPDATE', {
      replacements: { id: tag.id },
      transaction: tx,
    });
    await tag.destroy({ transaction: tx });
    return { success: true as const };
  });
}
