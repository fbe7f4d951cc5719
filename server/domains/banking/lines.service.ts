import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../db/database.js';
import { badRequest, conflict } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import type { BankLineObject, ListLinesQuery } from '../../../shared/contracts/banking.js';
import { loadAccount } from './account-rows.js';
import { LINE_COLUMNS, loadLine, presentLine, type LineRow } from './line-rows.js';

/** The trigram-indexed text of a line (migration 0014, bank_lines_search_trgm_idx). */
const SEARCH_TEXT = `lower(coalesce(description, '') || ' ' || coalesce(counterparty_name, '') || ' ' || coalesce(reference, ''))`;
const likeLiteral = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** GET /bank-accounts/{id}/lines: paged (CONTRACT §3), by bookingDate then id. */
export async function listLines(actor: Actor, q: ListLinesQuery) {
  if (q.fromDate && q.toDate && q.fromDate > q.toDate) throw badRequest('fromDate is after toDate');
  const account = await loadAccount(actor, q.id);
  const where = ['bank_account_id = :account'];
  const params: Record<string, unknown> = { account: account.id, limit: q.limit, offset: q.offset };
  const filters: [unknown, string, string, unknown][] = [
    [q.status, 'status = :status', 'status', q.status],
    [q.fromDate, 'booking_date >= :fromDate', 'fromDate', q.fromDate],
    [q.toDate, 'booking_date <= :toDate', 'toDate', q.toDate],
    [q.search, `${SEARCH_TEXT} LIKE :search`, 'search', q.search && likeLiteral(q.search)],
  ];
  for (const [given, sql, name, value] of filters) {
    if (given === undefined) continue;
    where.push(sql);
    params[name] = value;
  }
  const clause = where.join(' AND ');
  const [rows, [{ total }]] = await Promise.all([
    db().query<LineRow>(`SELECT ${LINE_COLUMNS} FROM bank_lines WHERE ${clause} ORDER BY booking_date, id LIMIT :limit OFFSET :offset`, {
      replacements: params,
      type: QueryTypes.SELECT,
    }),
    db().query<{ total: number }>(`SELECT count(*)::int AS total FROM bank_lines WHERE ${clause}`, {
      replacements: params,
      type: QueryTypes.SELECT,
    }),
  ]);
  return { items: rows.map(presentLine), total, limit: q.limit, offset: q.offset };
}

/** POST /bank-lines/{id}/ignore: UNMATCHED → IGNORED, else 409. */
export async function ignoreLine(actor: Actor, input: { id: number; reason: string }): Promise<BankLineObject> {
  return transaction(async (tx) => {
    const line = await loadLine(actor, input.id, tx, true);
    if (line.status !== 'UNMATCHED') throw conflict(`Only an UNMATCHED line can be ignored; this one is ${line.status}`);
    const [row] = await db().query<LineRow>(
      `UPDATE bank_lines SET status = 'IGNORED', ignored_reason = :reason WHERE workspace_id = :ws AND id = :id RETURNING ${LINE_COLUMNS}`,
      { replacements: { id: input.id, ws: line.workspace_id, reason: input.reason }, type: QueryTypes.SELECT, transaction: tx },
    );
    return presentLine(row);
  });
}

/** POST /bank-lines/{id}/unignore: IGNORED → UNMATCHED, else 409. */
export async function unignoreLine(actor: Actor, input: { id: number }): Promise<BankLineObject> {
  return transaction(async (tx) => {
    const line = await loadLine(actor, input.id, tx, true);
    if (line.status !== 'IGNORED') throw conflict(`Only an IGNORED line can be unignored; this one is ${line.status}`);
    const [row] = await db().query<LineRow>(
      `UPDATE bank_lines SET status = 'UNMATCHED', ignored_reason = NULL WHERE workspace_id = :ws AND id = :id RETURNING ${LINE_COLUMNS}`,
      { replacements: { id: input.id, ws: line.workspace_id }, type: QueryTypes.SELECT, transaction: tx },
    );
    return presentLine(row);
  });
}
