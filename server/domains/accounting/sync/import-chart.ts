import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import type { ImportResult } from '../../../../shared/contracts/sync.js';
import type { ExternalAccount } from '../providers/provider.js';
import { activeProvider, providerCall } from './pull.js';

/**
 * pull-chart-of-accounts (CONTRACT §9): the provider's accounts upserted as categories of the
 * connection's workspace by `externalId`. A known one takes the external name and is active
 * again (`updated` counts those that changed; its accountType and code stay, so the category
 * tree keeps its rules); a new one is `imported` with the external code, suffixed with
 * `-<externalId>` when the workspace already uses that code.
 */
export async function importChartOfAccounts(connectionId: string): Promise<ImportResult> {
  const { connection, provider } = await activeProvider(connectionId);
  const accounts = await providerCall('Listing external accounts', () => provider.listAccounts());
  return transaction(async (tx) => {
    const result: ImportResult = { imported: 0, updated: 0 };
    for (const account of accounts) {
      const outcome = await upsertCategory(tx, connection.workspace_id, account);
      if (outcome) result[outcome]++;
    }
    return result;
  });
}

type Category = { id: string; name: string; is_active: boolean };

async function upsertCategory(tx: Transaction, workspaceId: number, account: ExternalAccount): Promise<'imported' | 'updated' | null> {
  const now = clock.now();
  const [known] = await db().query<Category>(
    'SELECT id, name, is_active FROM accounting_categories WHERE workspace_id = :ws AND external_id = :externalId ORDER BY created_at, id LIMIT 1 FOR UPDATE',
    { replacements: { ws: workspaceId, externalId: account.externalId }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (known) {
    if (known.name === account.name && known.is_active) return null;
    await db().query('UPDATE accounting_categories SET name = :name, is_active = true, updated_at = :now WHERE id = :id', {
      replacements: { id: known.id, name: account.name, now },
      transaction: tx,
    });
    return 'updated';
  }
  for (const code of [account.code, `${account.code}-${account.externalId}`.slice(0, 50)]) {
    const inserted = await db().query(
      `INSERT INTO accounting_categories (workspace_id, code, name, account_type, external_id, created_at, updated_at)
       VALUES (:ws, :code, :name, :accountType, :externalId, :now, :now)
       ON CONFLICT (workspace_id, code) DO NOTHING RETURNING id`,
      {
        replacements: { ws: workspaceId, code, name: account.name, accountType: account.accountType, externalId: account.externalId, now },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    if (inserted.length) return 'imported';
  }
  return null;
}
