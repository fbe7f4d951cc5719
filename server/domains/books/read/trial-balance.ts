import { todayUtc } from '../../../lib/dates.js';
import type { Actor } from '../../../lib/scope.js';
import type { TrialBalance } from '../../../../shared/contracts/books-read.js';
import type { AccountType } from '../../../../shared/contracts/accounting.js';
import { requireBooksReader } from './access.js';
import { balanceAsOfJoin, baseCurrency, cents, exact, Params, select } from './sql.js';

export type AccountBalanceRow = {
  category_id: string;
  code: string;
  name: string;
  account_type: AccountType;
  debit: string;
  credit: string;
};

/**
 * Every account of the workspace with a line dated on or before `asOf` (every line when
 * undefined), ordered by code, with its debits and credits: from ledger_balances and the
 * lines of asOf's month only.
 */
export function accountBalances(workspaceId: number, asOf: string | undefined): Promise<AccountBalanceRow[]> {
  const p = new Params();
  const ws = p.add(workspaceId);
  return select<AccountBalanceRow>(
    `SELECT c.id::text AS category_id, c.code, c.name, c.account_type, b.b_debit::text AS debit, b.b_credit::text AS credit
       FROM accounting_categories c ${balanceAsOfJoin(p, asOf, 'b')}
      WHERE c.workspace_id = ${ws} AND (b.b_debit <> 0 OR b.b_credit <> 0)
      ORDER BY c.code`,
    p,
  );
}

/** GET /ledger/trial-balance (CONTRACT §23). */
export async function trialBalance(actor: Actor, q: { workspaceId: number; asOf?: string }): Promise<TrialBalance> {
  requireBooksReader(actor, q.workspaceId);
  const asOf = q.asOf ?? todayUtc();
  const [rows, currency] = await Promise.all([accountBalances(q.workspaceId, asOf), baseCurrency(q.workspaceId)]);
  const accounts = rows.map((r) => ({
    categoryId: r.category_id,
    code: r.code,
    name: r.name,
    accountType: r.account_type,
    debitCents: cents(r.debit),
    creditCents: cents(r.credit),
    balanceCents: exact(cents(r.debit) - cents(r.credit)),
  }));
  const totals = accounts.reduce(
    (t, a) => ({ debitCents: exact(t.debitCents + a.debitCents), creditCents: exact(t.creditCents + a.creditCents) }),
    { debitCents: 0, creditCents: 0 },
  );
  return { asOf, currency, accounts, totals };
}
