import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { AppError } from '../../../lib/errors.js';

/** Positional parameters ($1…) collected while a statement is written. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export function select<T extends object>(sql: string, params: Params, tx?: Transaction): Promise<T[]> {
  return db().query<T>(sql, { bind: params.values, type: QueryTypes.SELECT, transaction: tx });
}

/**
 * A bigint sum as PostgreSQL returns it (text) to a JS number of cents; a sum beyond 2^53 - 1 (many amounts near the
 * 10^15 limit) is refused as the reports refuse it (server/db/pg-types.ts), not returned inexactly.
 */
export const cents = (v: string | number | null | undefined): number => (v === null || v === undefined ? 0 : exact(Number(v), v));

/** n, when it is a safe integer; a 409 otherwise. */
export function exact(n: number, text: string | number = n): number {
  if (!Number.isSafeInteger(n)) {
    throw new AppError('CONFLICT', `A total (${text}) is beyond 2^53 - 1 and cannot be returned exactly; narrow the filters`);
  }
  return n;
}

/**
 * SQL (a FROM item with debit_cents and credit_cents) of the kept balance rows of account (ws, cat) dated
 * before the day `date` (`'<'`) or through it (`'<='`), or every row when `date` is undefined: the months
 * before date's month from ledger_balances, that month's days from ledger_day_balances (migration 0047).
 * A few rows per account, never the lines. `ws`, `cat` and `date` are SQL expressions (columns or parameters).
 */
export function keptBalanceRows(ws: string, cat: string, date?: string, last: '<' | '<=' = '<='): string {
  const account = `b.workspace_id = ${ws} AND b.category_id = ${cat}`;
  if (date === undefined) return `(SELECT b.debit_cents, b.credit_cents FROM ledger_balances b WHERE ${account})`;
  const month = `date_trunc('month', ${date}::date)::date`;
  return `(SELECT b.debit_cents, b.credit_cents FROM ledger_balances b WHERE ${account} AND b.month < ${month}
           UNION ALL
           SELECT b.debit_cents, b.credit_cents FROM ledger_day_balances b WHERE ${account} AND b.day >= ${month} AND b.day ${last} ${date}::date)`;
}

/**
 * SQL for the debits and credits of account `c` (alias of accounting_categories) dated on or before `asOf`
 * (every line when undefined), from the kept balances (keptBalanceRows). Yields columns `<as>_debit`,
 * `<as>_credit` (bigint) through a LATERAL join.
 */
export function balanceAsOfJoin(params: Params, asOf: string | undefined, as: string): string {
  const rows = keptBalanceRows('c.workspace_id', 'c.id', asOf === undefined ? undefined : params.add(asOf));
  return `CROSS JOIN LATERAL (SELECT COALESCE(sum(k.debit_cents), 0)::bigint AS ${as}_debit, COALESCE(sum(k.credit_cents), 0)::bigint AS ${as}_credit
                                FROM ${rows} k) ${as}`;
}

/** The day before an ISO date. */
export function dayBefore(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** The workspace's base currency (every amount of its books is in it). */
export async function baseCurrency(workspaceId: number, tx?: Transaction): Promise<string> {
  const p = new Params();
  const [row] = await select<{ c: string }>(`SELECT base_currency::text AS c FROM workspaces WHERE id = ${p.add(workspaceId)}`, p, tx);
  return row?.c ?? 'USD';
}
