import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { badRequest } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { AccountType, CategoryObject } from '../../../shared/contracts/accounting.js';
import { LEDGER_ROLES, ROLE_TYPES, type LedgerRole } from '../../../shared/contracts/books-write.js';
import { requireBooksReader } from './read/access.js';

/**
 * The seven roles of CONTRACT §23 on the workspace's categories. A workspace without an account for a role gets one
 * (books_ensure_roles of migration 0045: an unused code, active) before its first posting or the first read.
 */
export type Roles = Record<LedgerRole, CategoryObject>;

/**
 * A category row as CONTRACT §7 presents it. The books read categories themselves rather than through accounting's
 * face: accounting reacts to entries, and the books sit under the ledger core (no domain cycle).
 */
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

export async function ensureRoles(tx: Transaction, workspaceId: number): Promise<void> {
  await db().query('SELECT books_ensure_roles($1)', { bind: [workspaceId], type: QueryTypes.SELECT, transaction: tx });
}

/** Every role's account, the missing ones created first. */
export async function roleAccounts(tx: Transaction, workspaceId: number): Promise<Roles> {
  await ensureRoles(tx, workspaceId);
  const rows = await db().query<CategoryRow & { role: LedgerRole }>(
    `SELECT r.role, c.* FROM ledger_roles r JOIN accounting_categories c ON c.workspace_id = r.workspace_id AND c.id = r.category_id WHERE r.workspace_id = $1`,
    { bind: [workspaceId], type: QueryTypes.SELECT, transaction: tx },
  );
  const byRole = new Map(rows.map((r) => [r.role, presentCategory(r)]));
  return Object.fromEntries(LEDGER_ROLES.map((role) => [role, byRole.get(role)!])) as Roles;
}

/** GET /ledger/roles: workspace members (project members 403). */
export async function getRoles(actor: Actor, workspaceId: number): Promise<Roles> {
  requireBooksReader(actor, workspaceId);
  return transaction((tx) => roleAccounts(tx, workspaceId));
}

/**
 * PUT /ledger/roles (accounting.categories): each named category must be the workspace's, active and of the role's
 * type (400). Postings made before keep their accounts; postings from then on use the new ones.
 */
export async function putRoles(actor: Actor, input: { workspaceId: number; roles: Partial<Record<LedgerRole, string>> }): Promise<Roles> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  const given = LEDGER_ROLES.flatMap((role) => (input.roles[role] ? [{ role, categoryId: input.roles[role]! }] : []));
  return transaction(async (tx) => {
    await ensureRoles(tx, input.workspaceId);
    const cats = await db().query<CategoryRow>(
      'SELECT * FROM accounting_categories WHERE workspace_id = $1 AND id = ANY($2::uuid[]) FOR SHARE',
      { bind: [input.workspaceId, given.map((g) => g.categoryId)], type: QueryTypes.SELECT, transaction: tx },
    );
    const byId = new Map(cats.map((c) => [c.id, c]));
    for (const { role, categoryId } of given) {
      const cat = byId.get(categoryId);
      if (!cat) throw badRequest(`roles.${role}: category ${categoryId} is not a category of workspace ${input.workspaceId}`);
      if (!cat.is_active) throw badRequest(`roles.${role}: category ${cat.code} is inactive`);
      if (cat.account_type !== ROLE_TYPES[role]) {
        throw badRequest(`roles.${role}: the account must be of type ${ROLE_TYPES[role]}, category ${cat.code} is ${cat.account_type}`);
      }
    }
    if (given.length > 0) {
      await db().query(
        `UPDATE ledger_roles r SET category_id = g.category_id
           FROM unnest($2::text[], $3::uuid[]) AS g(role, category_id)
          WHERE r.workspace_id = $1 AND r.role = g.role`,
        { bind: [input.workspaceId, given.map((g) => g.role), given.map((g) => g.categoryId)], transaction: tx },
      );
    }
    return roleAccounts(tx, input.workspaceId);
  });
}
