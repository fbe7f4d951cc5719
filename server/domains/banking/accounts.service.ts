import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { seal } from '../../lib/crypto.js';
import { badRequest } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { BankAccountObject, CreateBankAccountInput, UpdateBankAccountInput } from '../../../shared/contracts/banking.js';
import { assertBankLedgerAccount, postBankOpenings, repostBankSettlements } from '../books/index.js';
import { ACCOUNT_COLUMNS, loadAccount, presentAccount, type AccountRow } from './account-rows.js';

export const accountNumberAad = (accountId: string) => `bank-account:${accountId}:number`;

/** The project and party named in a body must be of the account's workspace (400 otherwise). */
async function assertReferences(tx: Transaction, workspaceId: number, refs: { projectId?: number; partyId?: number | null }) {
  const [row] = await db().query<{ project_ok: boolean; party_ok: boolean }>(
    `SELECT (CAST(:projectId AS int) IS NULL OR EXISTS (SELECT 1 FROM projects WHERE id = :projectId AND workspace_id = :ws)) AS project_ok,
            (CAST(:partyId AS int) IS NULL OR EXISTS (SELECT 1 FROM parties WHERE id = :partyId AND workspace_id = :ws)) AS party_ok`,
    {
      replacements: { ws: workspaceId, projectId: refs.projectId ?? null, partyId: refs.partyId ?? null },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  if (!row.project_ok) throw badRequest(`Project ${refs.projectId} is not a project of workspace ${workspaceId}`);
  if (!row.party_ok) throw badRequest(`Party ${refs.partyId} is not a party of workspace ${workspaceId}`);
}

export async function listAccounts(actor: Actor, input: { workspaceId: number }): Promise<BankAccountObject[]> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  const rows = await db().query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM bank_accounts WHERE workspace_id = :ws ORDER BY created_at, id`,
    {
      replacements: { ws: input.workspaceId },
      type: QueryTypes.SELECT,
    },
  );
  return rows.map(presentAccount);
}

export const getAccount = async (actor: Actor, id: string): Promise<BankAccountObject> => presentAccount(await loadAccount(actor, id));

/** Creates the account and its entry source (kind BANK); the account number is sealed, only its last 4 are kept readable. */
export async function createAccount(actor: Actor, input: CreateBankAccountInput): Promise<BankAccountObject> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return transaction(async (tx) => {
    await assertReferences(tx, input.workspaceId, { projectId: input.projectId, partyId: input.partyId });
    await assertBankLedgerAccount(tx, input.workspaceId, input.ledgerCategoryId);
    const now = clock.now();
    const [{ id }] = await db().query<{ id: string }>('SELECT gen_random_uuid() AS id', { type: QueryTypes.SELECT, transaction: tx });
    const [source] = await db().query<{ id: number }>(
      `INSERT INTO entry_sources (workspace_id, kind, name, created_at) VALUES (:ws, 'BANK', :name, :now) RETURNING id`,
      { replacements: { ws: input.workspaceId, name: input.name, now }, type: QueryTypes.SELECT, transaction: tx },
    );
    const compact = input.accountNumber?.replace(/[\s-]/g, '');
    const sealed = compact ? seal(compact, accountNumberAad(id)) : null;
    const [row] = await db().query<AccountRow>(
      `INSERT INTO bank_accounts (id, workspace_id, name, currency, account_number_ciphertext, account_number_iv, account_number_tag,
         account_number_kid, account_number_last4, project_id, party_id, entry_source_id, opening_balance_cents, opening_date,
         date_tolerance_days, auto_match, csv_mapping, ledger_category_id, created_at, updated_at)
       VALUES (:id, :ws, :name, :currency, :ct, :iv, :tag, :kid, :last4, :projectId, :partyId, :sourceId, :opening, :openingDate,
         :tolerance, :autoMatch, CAST(:mapping AS jsonb), :ledgerCategoryId, :now, :now)
       RETURNING ${ACCOUNT_COLUMNS}`,
      {
        replacements: {
          id,
          ws: input.workspaceId,
          name: input.name,
          currency: input.currency,
          ct: sealed?.ciphertext ?? null,
          iv: sealed?.iv ?? null,
          tag: sealed?.tag ?? null,
          kid: sealed?.kid ?? null,
          last4: compact ? compact.slice(-4) : null,
          projectId: input.projectId,
          partyId: input.partyId ?? null,
          sourceId: source.id,
          opening: input.openingBalanceCents ?? 0,
          openingDate: input.openingDate ?? null,
          tolerance: input.dateToleranceDays ?? 5,
          autoMatch: input.autoMatch ?? true,
          mapping: input.csvMapping ? JSON.stringify(input.csvMapping) : null,
          ledgerCategoryId: input.ledgerCategoryId ?? null,
          now,
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    // CONTRACT §23: its opening balance posts kind OPENING (409 when dated in a closed period)
    await postBankOpenings(tx, input.workspaceId, [row.id]);
    return presentAccount(row);
  });
}

const UPDATABLE = [
  ['name', 'name'],
  ['partyId', 'party_id'],
  ['openingBalanceCents', 'opening_balance_cents'],
  ['openingDate', 'opening_date'],
  ['dateToleranceDays', 'date_tolerance_days'],
  ['autoMatch', 'auto_match'],
  ['ledgerCategoryId', 'ledger_category_id'],
] as const;

export async function updateAccount(actor: Actor, input: UpdateBankAccountInput): Promise<BankAccountObject> {
  return transaction(async (tx) => {
    const account = await loadAccount(actor, input.id, tx, 'update');
    await assertReferences(tx, account.workspace_id, { partyId: input.partyId });
    await assertBankLedgerAccount(tx, account.workspace_id, input.ledgerCategoryId);
    const sets: string[] = [];
    const values: Record<string, unknown> = {};
    for (const [field, column] of UPDATABLE) {
      if (input[field] === undefined) continue;
      sets.push(`${column} = :${column}`);
      values[column] = input[field];
    }
    if (input.csvMapping !== undefined) {
      sets.push('csv_mapping = CAST(:csv_mapping AS jsonb)');
      values.csv_mapping = input.csvMapping === null ? null : JSON.stringify(input.csvMapping);
    }
    if (sets.length === 0) return presentAccount(account);
    const [row] = await db().query<AccountRow>(
      `UPDATE bank_accounts SET ${sets.join(', ')}, updated_at = :now WHERE workspace_id = :ws AND id = :id RETURNING ${ACCOUNT_COLUMNS}`,
      { replacements: { ...values, now: clock.now(), id: account.id, ws: account.workspace_id }, type: QueryTypes.SELECT, transaction: tx },
    );
    // CONTRACT §23: a changed opening balance, date or ledger account re-posts the OPENING (409 into a closed period)
    if (input.openingBalanceCents !== undefined || input.openingDate !== undefined || input.ledgerCategoryId !== undefined) {
      await postBankOpenings(tx, account.workspace_id, [account.id]);
    }
    if (input.ledgerCategoryId !== undefined && input.ledgerCategoryId !== account.ledger_category_id) {
      await repostBankSettlements(tx, account.workspace_id, account.id);
    }
    return presentAccount(row);
  });
}

/** DELETE deactivates: the account, its lines and matches stay; imports and matches on it are then refused (409). */
export async function deactivateAccount(actor: Actor, id: string): Promise<{ success: true }> {
  return transaction(async (tx) => {
    const account = await loadAccount(actor, id, tx, 'update');
    if (account.is_active) {
      await db().query('UPDATE bank_accounts SET is_active = false, updated_at = :now WHERE workspace_id = :ws AND id = :id', {
        replacements: { now: clock.now(), id, ws: account.workspace_id },
        transaction: tx,
      });
    }
    return { success: true as const };
  });
}

/** Saves the mapping an import was given on its account (CONTRACT §14), inside the import's transaction. */
export async function saveCsvMapping(tx: Transaction, account: { id: string; workspace_id: number }, mapping: unknown): Promise<void> {
  await db().query('UPDATE bank_accounts SET csv_mapping = CAST(:m AS jsonb), updated_at = :now WHERE workspace_id = :ws AND id = :id', {
    replacements: { m: JSON.stringify(mapping), now: clock.now(), id: account.id, ws: account.workspace_id },
    transaction: tx,
  });
}
