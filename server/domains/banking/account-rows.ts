import { lockById } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { conflict, notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { BankAccountObject, CsvMapping } from '../../../shared/contracts/banking.js';

export type AccountRow = {
  id: string;
  workspace_id: number;
  name: string;
  currency: string;
  account_number_last4: string | null;
  project_id: number;
  party_id: number | null;
  entry_source_id: number;
  opening_balance_cents: number;
  opening_date: string | null;
  date_tolerance_days: number;
  auto_match: boolean;
  csv_mapping: CsvMapping | null;
  ledger_category_id: string | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
};

/** The columns an account is read with: never the sealed account number. */
export const ACCOUNT_COLUMNS = `id, workspace_id, name, currency, account_number_last4, project_id, party_id, entry_source_id,
  opening_balance_cents, opening_date, date_tolerance_days, auto_match, csv_mapping, ledger_category_id, is_active, created_at, updated_at`;

export function presentAccount(r: AccountRow): BankAccountObject {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    currency: r.currency.trim(),
    accountNumberLast4: r.account_number_last4,
    projectId: r.project_id,
    partyId: r.party_id,
    entrySourceId: r.entry_source_id,
    openingBalanceCents: r.opening_balance_cents,
    openingDate: r.opening_date,
    dateToleranceDays: r.date_tolerance_days,
    autoMatch: r.auto_match,
    csvMapping: r.csv_mapping,
    ledgerCategoryId: r.ledger_category_id,
    isActive: r.is_active,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export type AccountLock = 'none' | 'share' | 'update';
const LOCKS: Record<AccountLock, string> = { none: '', share: 'FOR SHARE', update: 'FOR NO KEY UPDATE' };

/** A bank account of a workspace the actor is a member of, or 404 (CONTRACT §14: workspace-level resource). */
export async function loadAccount(actor: Actor | null, id: string, tx?: Transaction, lock: AccountLock = 'none'): Promise<AccountRow> {
  const [row] = await db().query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM bank_accounts WHERE id = :id${lock === 'none' ? '' : await lockById('bank_accounts', id, tx, LOCKS[lock])}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  if (!row || (actor && !scope.canSeeWorkspaceObject(actor, row.workspace_id))) throw notFound('Bank account');
  return row;
}

/** Imports and matches on a deactivated account: 409. */
export function assertActive(account: AccountRow): void {
  if (!account.is_active) throw conflict('The bank account is deactivated');
}
