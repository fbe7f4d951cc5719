import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { NAME_MAX } from '../../../../shared/contracts/common.js';

/**
 * The counterparty of an entry made from a document (CONTRACT §21): the workspace's party with the
 * read tax id, else with that name (case-insensitive, lowest id), else a new ORGANIZATION with
 * both. The parties domain has no public write function: this is its one insert, through the same
 * columns its service writes.
 */
export async function partyForDocument(
  tx: Transaction,
  workspaceId: number,
  name: string | null,
  taxId: string | null,
): Promise<number | null> {
  if (!name) return null;
  const [found] = await db().query<{ id: number }>(
    `SELECT id FROM parties WHERE workspace_id = :ws AND ((CAST(:taxId AS text) IS NOT NULL AND tax_id = :taxId) OR lower(name) = lower(:name))
      ORDER BY (tax_id IS NOT DISTINCT FROM CAST(:taxId AS text)) DESC, id LIMIT 1`,
    { replacements: { ws: workspaceId, name, taxId }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (found) return Number(found.id);
  const [created] = await db().query<{ id: number }>(
    `INSERT INTO parties (workspace_id, name, party_type, tax_id, created_at, updated_at)
     VALUES (:ws, :name, 'ORGANIZATION', :taxId, now(), now()) RETURNING id`,
    { replacements: { ws: workspaceId, name: name.slice(0, NAME_MAX), taxId }, type: QueryTypes.SELECT, transaction: tx },
  );
  return Number(created.id);
}
