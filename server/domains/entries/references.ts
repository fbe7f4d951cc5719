import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { badRequest } from '../../lib/errors.js';

async function idsIn(
  tx: Transaction,
  table: 'parties' | 'tags' | 'entry_sources',
  workspaceId: number,
  ids: number[],
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  // an archived tag (CONTRACT §4) cannot be added to entries
  const usable = table === 'tags' ? ' AND archived_at IS NULL' : '';
  const rows = await db().query<{ id: number }>(`SELECT id FROM ${table} WHERE workspace_id = :ws AND id IN (:ids)${usable}`, {
    replacements: { ws: workspaceId, ids },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return new Set(rows.map((r) => r.id));
}

/** Parties, (active) tags, entry sources and (active) categories named by an entry write must belong to its workspace (400). */
export async function assertReferences(
  tx: Transaction,
  workspaceId: number,
  refs: {
    partyIds?: (number | null | undefined)[];
    tagIds?: number[];
    entrySourceId?: number;
    categoryIds?: (string | null | undefined)[];
  },
): Promise<void> {
  const partyIds = [...new Set((refs.partyIds ?? []).filter((id): id is number => typeof id === 'number'))];
  const found = await idsIn(tx, 'parties', workspaceId, partyIds);
  const missingParty = partyIds.find((id) => !found.has(id));
  if (missingParty !== undefined) throw badRequest(`Party ${missingParty} is not a party of this workspace`);
  const tagIds = [...new Set(refs.tagIds ?? [])];
  const tags = await idsIn(tx, 'tags', workspaceId, tagIds);
  const missingTag = tagIds.find((id) => !tags.has(id));
  if (missingTag !== undefined) throw badRequest(`Tag ${missingTag} is not a tag of this workspace`);
  if (refs.entrySourceId !== undefined) {
    const sources = await idsIn(tx, 'entry_sources', workspaceId, [refs.entrySourceId]);
    if (!sources.has(refs.entrySourceId)) throw badRequest(`Entry source ${refs.entrySourceId} is not a source of this workspace`);
  }
  await assertActiveCategories(tx, workspaceId, refs.categoryIds ?? []);
}

/** CONTRACT §5: `items[].categoryId` (and the entry's own) must be an active category of the entry's workspace. */
async function assertActiveCategories(tx: Transaction, workspaceId: number, categoryIds: (string | null | undefined)[]): Promise<void> {
  const ids = [...new Set(categoryIds.filter((id): id is string => typeof id === 'string'))];
  if (ids.length === 0) return;
  const rows = await db().query<{ id: string }>(
    'SELECT id FROM accounting_categories WHERE workspace_id = :ws AND is_active AND id IN (:ids)',
    { replacements: { ws: workspaceId, ids }, type: QueryTypes.SELECT, transaction: tx },
  );
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw badRequest(`Category ${missing} is not an active category of this workspace`);
}

export async function manualSourceId(tx: Transaction, workspaceId: number): Promise<number> {
  const [row] = await db().query<{ id: number }>(
    `INSERT INTO entry_sources (workspace_id, kind, name) VALUES (:ws, 'MANUAL', 'Manual')
     ON CONFLICT (workspace_id) WHERE kind = 'MANUAL' DO UPDATE SET name = entry_sources.name RETURNING id`,
    { replacements: { ws: workspaceId }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row.id;
}
