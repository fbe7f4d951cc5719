import { todayUtc } from '../../../lib/dates.js';
import type { Actor } from '../../../lib/scope.js';
import type { BalanceSheet, ProfitAndLoss, ProfitAndLossQuery } from '../../../../shared/contracts/books-read.js';
import type { AccountType } from '../../../../shared/contracts/accounting.js';
import { requireBooksReader } from './access.js';
import { accountBalances } from './trial-balance.js';
import { balanceAsOfJoin, baseCurrency, cents, dayBefore, exact, Params, select } from './sql.js';

/** Amounts in the account's normal direction: assets and expenses debit, the rest credit. */
const DEBIT_NORMAL: ReadonlySet<AccountType> = new Set(['ASSET', 'EXPENSE']);
const normal = (type: AccountType, debit: number, credit: number) => exact(DEBIT_NORMAL.has(type) ? debit - credit : credit - debit);

type Movement = { category_id: string; code: string; name: string; account_type: AccountType; debit: string; credit: string };

/** Debits and credits of each P&L account dated in [from, to]: the balance up to `to` less the balance before `from`. */
function movementsFromBalances(workspaceId: number, from: string | undefined, to: string | undefined): Promise<Movement[]> {
  const p = new Params();
  const ws = p.add(workspaceId);
  const upTo = balanceAsOfJoin(p, to, 'hi');
  const before =
    from === undefined
      ? `CROSS JOIN LATERAL (SELECT 0::bigint AS lo_debit, 0::bigint AS lo_credit) lo`
      : balanceAsOfJoin(p, dayBefore(from), 'lo');
  return select<Movement>(
    `SELECT c.id::text AS category_id, c.code, c.name, c.account_type,
            (hi.hi_debit - lo.lo_debit)::text AS debit, (hi.hi_credit - lo.lo_credit)::text AS credit
       FROM accounting_categories c ${upTo} ${before}
      WHERE c.workspace_id = ${ws} AND c.account_type IN ('REVENUE', 'EXPENSE')
        AND (hi.hi_debit <> lo.lo_debit OR hi.hi_credit <> lo.lo_credit)
      ORDER BY c.code`,
    p,
  );
}

/** The same for one project: the ENTRY transactions of its entries and their reversals (lines carry kind, date and entry). */
function projectMovements(workspaceId: number, projectId: number, from: string | undefined, to: string | undefined): Promise<Movement[]> {
  const p = new Params();
  const ws = p.add(workspaceId);
  const where = [`l.workspace_id = ${ws}`, `e.project_id = ${p.add(projectId)}`, `c.account_type IN ('REVENUE', 'EXPENSE')`];
  if (from !== undefined) where.push(`l.txn_date >= ${p.add(from)}::date`);
  if (to !== undefined) where.push(`l.txn_date <= ${p.add(to)}::date`);
  return select<Movement>(
    `SELECT c.id::text AS category_id, c.code, c.name, c.account_type, sum(l.debit_cents)::text AS debit, sum(l.credit_cents)::text AS credit
       FROM journal_lines l
       JOIN journal_transactions t ON t.workspace_id = l.workspace_id AND t.id = l.transaction_id
       LEFT JOIN journal_transactions o ON o.workspace_id = t.workspace_id AND o.id = t.reverses
       JOIN entries e ON e.id = l.entry_id AND e.workspace_id = l.workspace_id
       JOIN accounting_categories c ON c.workspace_id = l.workspace_id AND c.id = l.category_id
      WHERE ${where.join(' AND ')} AND (t.kind = 'ENTRY' OR (t.kind = 'REVERSAL' AND o.kind = 'ENTRY'))
      GROUP BY c.id, c.code, c.name, c.account_type
      ORDER BY c.code`,
    p,
  );
}

/** GET /reports/profit-and-loss (CONTRACT §23). */
export async function profitAndLoss(actor: Actor, q: ProfitAndLossQuery): Promise<ProfitAndLoss> {
  requireBooksReader(actor, q.workspaceId);
  const [rows, currency] = await Promise.all([
    q.projectId === undefined
      ? movementsFromBalances(q.workspaceId, q.from, q.to)
      : projectMovements(q.workspaceId, q.projectId, q.from, q.to),
    baseCurrency(q.workspaceId),
  ]);
  const row = (m: Movement) => ({
    categoryId: m.category_id,
    code: m.code,
    name: m.name,
    amountCents: normal(m.account_type, cents(m.debit), cents(m.credit)),
  });
  const revenue = rows.filter((m) => m.account_type === 'REVENUE').map(row);
  const expenses = rows.filter((m) => m.account_type === 'EXPENSE').map(row);
  const total = (xs: { amountCents: number }[]) => xs.reduce((s, x) => exact(s + x.amountCents), 0);
  const totalRevenueCents = total(revenue);
  const totalExpenseCents = total(expenses);
  return {
    currency,
    revenue,
    expenses,
    totalRevenueCents,
    totalExpenseCents,
    netIncomeCents: exact(totalRevenueCents - totalExpenseCents),
  };
}

/** GET /reports/balance-sheet (CONTRACT §23): the P&L accounts up to asOf are currentEarningsCents, so the totals always agree. */
export async function balanceSheet(actor: Actor, q: { workspaceId: number; asOf?: string }): Promise<BalanceSheet> {
  requireBooksReader(actor, q.workspaceId);
  const asOf = q.asOf ?? todayUtc();
  const [rows, currency] = await Promise.all([accountBalances(q.workspaceId, asOf), baseCurrency(q.workspaceId)]);
  const of = (type: AccountType) =>
    rows
      .filter((r) => r.account_type === type)
      .map((r) => ({ categoryId: r.category_id, code: r.code, name: r.name, amountCents: normal(type, cents(r.debit), cents(r.credit)) }));
  const assets = of('ASSET');
  const liabilities = of('LIABILITY');
  const equity = of('EQUITY');
  const sum = (xs: { amountCents: number }[]) => xs.reduce((s, x) => exact(s + x.amountCents), 0);
  const currentEarningsCents = exact(sum(of('REVENUE')) - sum(of('EXPENSE')));
  return {
    asOf,
    currency,
    assets,
    liabilities,
    equity,
    currentEarningsCents,
    totalAssetsCents: sum(assets),
    totalLiabilitiesAndEquityCents: exact(sum(liabilities) + sum(equity) + currentEarningsCents),
  };
}
