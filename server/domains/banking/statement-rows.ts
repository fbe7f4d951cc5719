import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import type { Actor } from '../../lib/scope.js';
import type { StatementObject } from '../../../shared/contracts/banking.js';
import { loadAccount } from './account-rows.js';

export type StatementRow = {
  id: string;
  bank_account_id: string;
  format: StatementObject['format'];
  file_name: string | null;
  sha256: string;
  line_count: number;
  imported_count: number;
  duplicate_count: number;
  auto_matched_count: number;
  opening_balance_cents: number | null;
  closing_balance_cents: number | null;
  period_start: string | null;
  period_end: string | null;
  imported_by: string | null;
  created_at: Date;
};

export const presentStatement = (r: StatementRow): StatementObject => ({
  id: r.id,
  bankAccountId: r.bank_account_id,
  format: r.format,
  fileName: r.file_name,
  sha256: r.sha256,
  lineCount: r.line_count,
  importedCount: r.imported_count,
  duplicateCount: r.duplicate_count,
  autoMatchedCount: r.auto_matched_count,
  openingBalanceCents: r.opening_balance_cents,
  closingBalanceCents: r.closing_balance_cents,
  periodStart: r.period_start,
  periodEnd: r.period_end,
  importedBy: r.imported_by,
  createdAt: r.created_at.toISOString(),
});

/** GET /bank-accounts/{id}/statements: oldest first. */
export async function listStatements(actor: Actor, accountId: string): Promise<StatementObject[]> {
  const account = await loadAccount(actor, accountId);
  const rows = await db().query<StatementRow>('SELECT * FROM bank_statements WHERE bank_account_id = :id ORDER BY created_at, id', {
    replacements: { id: account.id },
    type: QueryTypes.SELECT,
  });
  return rows.map(presentStatement);
}
