import { lockById } from '../../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { badRequest, notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { AccountType, CategoryObject } from '../../../../shared/contracts/accounting.js';

export type CategoryRow = {
  id: string;
  workspace_id: number;
  code: string;
  name: string;
  account_type: AccountType;
  parent_id: string | null;
  external_id: string | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
};

export const presentCategory = (r: CategoryRow): CategoryObject => ({
  id: r.id,
  workspaceId: r.workspace_id,
  code: r.code,
  name: r.name,
  accountType: r.account_type,
  parentId: r.parent_id,
  externalId: r.external_id,
  isActive: r.is_active,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export async function findCategory(id: string, tx?: Transaction, forUpdate = false): Promise<CategoryRow | undefined> {
  const rows = await db().query<CategoryRow>(
    `SELECT * FROM accounting_categories WHERE id = :id${forUpdate ? await lockById('accounting_categories', id, tx, 'FOR NO KEY UPDATE') : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return rows[0];
}

/** A category of a workspace the actor is a member of, or 404. */
export async function loadCategory(actor: Actor, id: string, tx?: Transaction, forUpdate = false): Promise<CategoryRow> {
  const row = await findCategory(id, tx, forUpdate);
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('Category');
  return row;
}

/** A review's `categoryId` must name an active category of the review's workspace (400). */
export async function assertActiveCategory(tx: Transaction, workspaceId: number, categoryId: string): Promise<void> {
  const row = await findCategory(categoryId, tx);
  if (!row || row.workspace_id !== workspaceId) throw badRequest('categoryId is not a category of this workspace');
  if (!row.is_active) throw badRequest('categoryId names an inactive category');
}
