import type { AccountLines, AccountLinesQuery } from '../../../../shared/contracts/books-read.js';
import { badRequest } from '../../../lib/errors.js';
import { decodeCursor, encodeCursor, listScope } from '../../../lib/page-cursor.js';
import type { Actor } from '../../../lib/scope.js';
import { presentCategory, type CategoryRow } from '../roles.service.js';
import { requireBooksObject } from './access.js';
import { cents, dayBefore, keptBalanceRows, Params, select } from './sql.js';

/** A line's place in the general ledger: its date, transaction and line number. */
type Position = { date: string; transactionId: number; lineNo: number };

/**
 * SQL: debits minus credits of account (ws, cat) up to `at` (every line when undefined): the kept balances
 * (keptBalanceRows) through a date, or before a position's day plus that day's lines up to the position.
 */
function balanceThrough(p: Params, ws: string, cat: string, at: Position | string | undefined): string {
  const kept = (date: string | undefined, last: '<' | '<=') =>
    `(SELECT COALESCE(sum(k.debit_cents - k.credit_cents), 0) FROM ${keptBalanceRows(ws, cat, date, last)} k)`;
  if (at === undefined || typeof at === 'string') return kept(at === undefined ? undefined : p.add(at), '<=');
  const date = p.add(at.date);
  return `(${kept(date, '<')}
         + (SELECT COALESCE(sum(l.debit_cents - l.credit_cents), 0) FROM journal_lines l
             WHERE l.workspace_id = ${ws} AND l.category_id = ${cat} AND l.txn_date = ${date}::date
               AND (l.transaction_id, l.line_no) <= (${p.add(at.transactionId)}::bigint, ${p.add(at.lineNo)}::int)))`;
}

/** What a general-ledger cursor is bound to: the workspace, the account and the range (not the page size). */
const accountLinesScope = (workspaceId: number, q: { categoryId: string; from?: string; to?: string }) =>
  listScope({ list: 'account-lines', ws: workspaceId, cat: q.categoryId, from: q.from ?? null, to: q.to ?? null });

/** The cursor of the page after the line at `at` (the bench starts a page deep in an account with it). */
export const accountLinesCursor = (workspaceId: number, q: { categoryId: string; from?: string; to?: string }, at: Position): string =>
  encodeCursor(accountLinesScope(workspaceId, q), { key: `${at.date}|${at.lineNo}`, id: at.transactionId });

function decodePosition(cursor: string, identity: string): Position {
  const at = decodeCursor(cursor, identity);
  const [date, lineNo] = at.key.split('|');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date ?? '') || !/^\d+$/.test(lineNo ?? '')) throw badRequest('Invalid cursor');
  return { date, transactionId: at.id, lineNo: Number(lineNo) };
}

type LineRow = {
  transaction_id: string;
  line_no: number;
  kind: AccountLines['items'][number]['kind'];
  date: string;
  entry_id: number | null;
  description: string | null;
  debit_cents: string;
  credit_cents: string;
  running: string;
};

/**
 * GET /ledger/accounts/{categoryId}/lines (CONTRACT §23): the general ledger of one account in keyset
 * pages. However deep the page, it costs the same: the balance before the page comes from
 * ledger_balances plus the lines of one month, the page's lines from the account index after the
 * cursor, and the running balance is a window sum over the page's lines only.
 */
export async function accountLines(actor: Actor, q: AccountLinesQuery): Promise<AccountLines> {
  const p0 = new Params();
  const [category] = await select<CategoryRow>(`SELECT * FROM accounting_categories WHERE id = ${p0.add(q.categoryId)}::uuid`, p0);
  const workspaceId = requireBooksObject(actor, category?.workspace_id, 'Account');
  const identity = accountLinesScope(workspaceId, q);
  const after = q.cursor === undefined ? undefined : decodePosition(q.cursor, identity);

  const p = new Params();
  const ws = p.add(workspaceId);
  const cat = `${p.add(q.categoryId)}::uuid`;
  const opening = q.from === undefined ? '0' : balanceThrough(p, ws, cat, dayBefore(q.from));
  const closing = balanceThrough(p, ws, cat, q.to);
  const start = after ? balanceThrough(p, ws, cat, after) : opening;
  const where = [`l.workspace_id = ${ws}`, `l.category_id = ${cat}`];
  if (after) {
    where.push(
      `(l.txn_date, l.transaction_id, l.line_no) > (${p.add(after.date)}::date, ${p.add(after.transactionId)}::bigint, ${p.add(after.lineNo)}::int)`,
    );
  } else if (q.from !== undefined) where.push(`l.txn_date >= ${p.add(q.from)}::date`);
  if (q.to !== undefined) where.push(`l.txn_date <= ${p.add(q.to)}::date`);
  const limit = p.add(q.limit + 1);

  // one statement: the three balances once, the page's lines joined to them (an empty page still carries them)
  const rows = await select<LineRow & { opening: string; closing: string }>(
    `WITH sums AS (SELECT (${opening}) AS opening, (${closing}) AS closing, (${start}) AS start),
     page AS (
       SELECT l.transaction_id, l.line_no, l.kind, l.txn_date, l.entry_id, l.debit_cents, l.credit_cents, l.description
         FROM journal_lines l WHERE ${where.join(' AND ')}
        ORDER BY l.txn_date, l.transaction_id, l.line_no LIMIT ${limit})
     SELECT s.opening::text, s.closing::text, pg.transaction_id::text, pg.line_no, pg.kind, to_char(pg.txn_date, 'YYYY-MM-DD') AS date,
            pg.entry_id::int AS entry_id, COALESCE(pg.description, t.description) AS description,
            pg.debit_cents::text, pg.credit_cents::text,
            (s.start + sum(pg.debit_cents - pg.credit_cents) OVER (ORDER BY pg.txn_date, pg.transaction_id, pg.line_no))::text AS running
       FROM sums s
       LEFT JOIN (page pg JOIN journal_transactions t ON t.workspace_id = ${ws} AND t.id = pg.transaction_id) ON true
      ORDER BY pg.txn_date, pg.transaction_id, pg.line_no`,
    p,
  );
  const sums = rows[0];
  const lines = rows.filter((r) => r.transaction_id !== null);
  const page = lines.slice(0, q.limit);
  const last = page[page.length - 1];
  const nextCursor =
    lines.length > q.limit && last
      ? accountLinesCursor(workspaceId, q, { date: last.date, lineNo: last.line_no, transactionId: Number(last.transaction_id) })
      : null;
  return {
    account: presentCategory(category),
    openingBalanceCents: cents(sums.opening),
    items: page.map((r) => ({
      transactionId: Number(r.transaction_id),
      kind: r.kind,
      date: r.date,
      entryId: r.entry_id,
      description: r.description,
      debitCents: cents(r.debit_cents),
      creditCents: cents(r.credit_cents),
      balanceCents: cents(r.running),
    })),
    closingBalanceCents: cents(sums.closing),
    nextCursor,
  };
}
