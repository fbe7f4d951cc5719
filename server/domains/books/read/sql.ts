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
 * SQL for the debits and credits of account `c` (alias of accounting_categories) dated on or
 * before `asOf` (every line when undefined): the months before asOf's month from ledger_balances,
 * that month's days up to asOf from ledger_day_balances (migration 0047). A few rows per account,
 * never the lines. Yields columns `<as>_debit`, `<as>_credit` (bigint) through LATERAL joins.
 */
export function balanceAsOfJoin(params: Params, asOf: string | undefined, as: string): string {
  if (asOf === undefined) {
    return `CROSS JOIN LATERAL (SELECT COALESCE(sum(b.debit_cents), 0)::bigint AS ${as}_debit, COALESCE(sum(b.credit_cents), 0)::bigint AS ${as}_credit
                                  FROM ledger_balances b WHERE b.workspace_id = c.workspace_id AND b.category_id = c.id) ${as}`;
  }
  const d = params.add(asOf);
  return `CROSS JOIN LATERAL (
      SELECT (COALESCE(mb.debit, 0) + COALESCE(db.debit, 0))::bigint AS ${as}_debit,
             (COALESCE(mb.credit, 0) + COALESCE(db.credit, 0))::bigint AS ${as}_credit
        FROM (SELECT sum(b.debit_cents) AS debit, sum(b.credit_cents) AS credit FROM ledger_balances b
               WHERE b.workspace_id = c.workspace_id AND b.category_id = c.id AND b.month < date_trunc('month', ${d}::date)::date) mb,
             (SELECT sum(b.debit_cents) AS debit, sum(b.credit_cents) AS credit FROM ledger_day_balances b
               WHERE b.workspace_id = c.workspace_id AND b.category_id = c.id
                 AND b.day >= date_trunc('month', ${d}::date)::date AND b.day <= ${d}::date) db) ${as}`;
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
