import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { badRequest, conflict, quotedValue } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { AccountType, CategoryObject, CreateCategoryInput, UpdateCategoryInput } from '../../../../shared/contracts/accounting.js';
import { findCategory, loadCategory, presentCategory, type CategoryRow } from './category-rows.js';

/**
 * Changes to a workspace's chart of accounts run one at a time (transaction-scoped advisory
 * lock), so two concurrent re-parentings can never close a cycle between them.
 */
async function lockChart(tx: Transaction, workspaceId: number): Promise<void> {
  await db().query(`SELECT pg_advisory_xact_lock(hashtext('accounting_categories'), :ws)`, {
    replacements: { ws: workspaceId },
    transaction: tx,
  });
}

async function assertCodeFree(tx: Transaction, workspaceId: number, code: string, exceptId?: string): Promise<void> {
  const rows = await db().query('SELECT 1 FROM accounting_categories WHERE workspace_id = :ws AND code = :code AND id <> :except', {
    replacements: { ws: workspaceId, code, except: exceptId ?? '00000000-0000-0000-0000-000000000000' },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  if (rows.length) throw conflict(`Category code ${quotedValue(code)} is already used in this workspace`);
}

/** A parent must be a category of the same workspace with the same accountType (400). */
async function assertParent(tx: Transaction, workspaceId: number, parentId: string, accountType: AccountType): Promise<void> {
  const parent = await findCategory(parentId, tx);
  if (!parent || parent.workspace_id !== workspaceId) throw badRequest('parentId is not a category of this workspace');
  if (parent.account_type !== accountType) {
    throw badRequest(`The parent's accountType is ${parent.account_type}; a ${accountType} category needs a ${accountType} parent`);
  }
}

/** Would making `parentId` the parent of `id` close a cycle? (is `id` among `parentId`'s ancestors, or itself) */
async function assertNoCycle(tx: Transaction, workspaceId: number, id: string, parentId: string): Promise<void> {
  // the workspace on both sides of the recursion: one shard group on Citus (a parent is of the same workspace: assertParent)
  const [row] = await db().query<{ cycle: boolean }>(
    `WITH RECURSIVE ancestors(id, parent_id) AS (
       SELECT id, parent_id FROM accounting_categories WHERE workspace_id = :ws AND id = :parentId
       UNION
       SELECT c.id, c.parent_id FROM accounting_categories c JOIN ancestors a ON c.id = a.parent_id WHERE c.workspace_id = :ws
     )
     SELECT EXISTS (SELECT 1 FROM ancestors WHERE id = :id) AS cycle`,
    { replacements: { ws: workspaceId, id, parentId }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (row.cycle) throw badRequest('parentId would make the category its own ancestor (cycle)');
}

/** Changing the accountType of a category with children would break their parent rule (400). */
async function assertChildrenMatch(tx: Transaction, id: string, accountType: AccountType): Promise<void> {
  const rows = await db().query(`SELECT 1 FROM accounting_categories WHERE parent_id = :id AND account_type <> :type LIMIT 1`, {
    replacements: { id, type: accountType },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  if (rows.length) throw badRequest(`The category has children of another accountType; it cannot become ${accountType}`);
}

export async function listCategories(actor: Actor, workspaceId: number, includeInactive = false): Promise<CategoryObject[]> {
  scope.requireWorkspaceMember(actor, workspaceId);
  const rows = await db().query<CategoryRow>(
    `SELECT * FROM accounting_categories WHERE workspace_id = :ws ${includeInactive ? '' : 'AND is_active'} ORDER BY code, id`,
    { replacements: { ws: workspaceId }, type: QueryTypes.SELECT },
  );
  return rows.map(presentCategory);
}

export async function createCategory(actor: Actor, input: CreateCategoryInput): Promise<CategoryObject> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return transaction(async (tx) => {
    await lockChart(tx, input.workspaceId);
    await assertCodeFree(tx, input.workspaceId, input.code);
    if (input.parentId) await assertParent(tx, input.workspaceId, input.parentId, input.accountType);
    const [row] = await db().query<CategoryRow>(
      `INSERT INTO accounting_categories (workspace_id, code, name, account_type, parent_id, external_id, created_at, updated_at)
       VALUES (:ws, :code, :name, :type, :parentId, :externalId, :now, :now) RETURNING *`,
      {
        replacements: {
          ws: input.workspaceId,
          code: input.code,
          name: input.name,
          type: input.accountType,
          parentId: input.parentId ?? null,
          externalId: input.externalId ?? null,
          now: clock.now(),
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return presentCategory(row);
  });
}

export async function updateCategory(actor: Actor, input: UpdateCategoryInput): Promise<CategoryObject> {
  return transaction(async (tx) => {
    const current = await loadCategory(actor, input.id, tx);
    await lockChart(tx, current.workspace_id);
    const row = await loadCategory(actor, input.id, tx, true);
    const accountType = input.accountType ?? row.account_type;
    const parentId = input.parentId === undefined ? row.parent_id : input.parentId;
    if (input.code !== undefined && input.code !== row.code) await assertCodeFree(tx, row.workspace_id, input.code, row.id);
    if (parentId && (input.parentId !== undefined || input.accountType !== undefined)) {
      await assertParent(tx, row.workspace_id, parentId, accountType);
      await assertNoCycle(tx, row.workspace_id, row.id, parentId);
    }
    if (accountType !== row.account_type) await assertChildrenMatch(tx, row.id, accountType);
    const [updated] = await db().query<CategoryRow>(
      `UPDATE accounting_categories
          SET code = :code, name = :name, account_type = :type, parent_id = :parentId, external_id = :externalId,
              is_active = :isActive, updated_at = :now
        WHERE id = :id RETURNING *`,
      {
        replacements: {
          id: row.id,
          code: input.code ?? row.code,
          name: input.name ?? row.name,
          type: accountType,
          parentId,
          externalId: input.externalId === undefined ? row.external_id : input.externalId,
          isActive: input.isActive ?? row.is_active,
          now: clock.now(),
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return presentCategory(updated);
  });
}

/** DELETE deactivates: the category stays (entries and reviews may name it) but is no longer listed or assignable. */
export async function deactivateCategory(actor: Actor, id: string): Promise<{ success: true }> {
  await transaction(async (tx) => {
    const row = await loadCategory(actor, id, tx, true);
    await db().query('UPDATE accounting_categories SET is_active = false, updated_at = :now WHERE id = :id', {
      replacements: { id: row.id, now: clock.now() },
      transaction: tx,
    });
  });
  return { success: true };
}
