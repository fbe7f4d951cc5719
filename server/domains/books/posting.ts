import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { badRequest } from '../../lib/errors.js';
import { publishPosted } from './journal-write.service.js';

/**
 * A bank account's OPENING transaction (CONTRACT §23): books_post_bank_openings (migration 0045) reverses the one
 * posted when the balance, the date or the ledger account changed and posts the new one, with journal.posted. A
 * date in a closed period fails at the database (journal_closed_period → 409).
 */
export async function postBankOpenings(tx: Transaction, workspaceId: number, accountIds: readonly string[]): Promise<void> {
  if (accountIds.length === 0) return;
  const [{ ids }] = await db().query<{ ids: string[] }>('SELECT books_post_bank_openings($1, $2::uuid[]) AS ids', {
    bind: [workspaceId, accountIds],
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  await publishPosted(tx, ids.map(Number));
}

/**
 * A bank account's ledger account changed: the settlements of its matched entries move to the new one (their
 * reversal and new posting, dated out of closed periods as every settlement is).
 */
export async function repostBankSettlements(tx: Transaction, workspaceId: number, accountId: string): Promise<void> {
  await db().query(
    `SELECT books_post_entries($1, ARRAY(SELECT me.entry_id FROM bank_matches m JOIN bank_match_entries me ON me.workspace_id = m.workspace_id AND me.match_id = m.id
                                          WHERE m.workspace_id = $1 AND m.bank_account_id = $2 ORDER BY me.entry_id))`,
    { bind: [workspaceId, accountId], type: QueryTypes.SELECT, transaction: tx },
  );
}

/** A bank account's ledgerCategoryId: an ASSET category of the workspace (400 otherwise). */
export async function assertBankLedgerAccount(tx: Transaction, workspaceId: number, categoryId: string | null | undefined): Promise<void> {
  if (!categoryId) return;
  const [row] = await db().query<{ account_type: string }>(
    'SELECT account_type FROM accounting_categories WHERE id = $1 AND workspace_id = $2',
    { bind: [categoryId, workspaceId], type: QueryTypes.SELECT, transaction: tx },
  );
  if (!row) throw badRequest(`ledgerCategoryId: ${categoryId} is not a category of workspace ${workspaceId}`);
  if (row.account_type !== 'ASSET') throw badRequest(`ledgerCategoryId: the account must be of type ASSET, not ${row.account_type}`);
}
