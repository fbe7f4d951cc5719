import type { Transaction } from '../../../db/database.js';
import { decodeCursor, encodeCursor, listScope } from '../../../lib/page-cursor.js';
import type { Actor } from '../../../lib/scope.js';
import type { JournalQuery, JournalTransactionObject } from '../../../../shared/contracts/books-read.js';
import { requireBooksObject, requireBooksReader } from './access.js';
import { Params, select } from './sql.js';

type TransactionRow = {
  id: string;
  workspace_id: number;
  kind: JournalTransactionObject['kind'];
  date: string;
  posted_at: Date;
  entry_id: number | null;
  bank_match_id: string | null;
  reverses: string | null;
  reversed_by: string | null;
  description: string | null;
  created_by: string | null;
};
type LineRow = {
  transaction_id: string;
  category_id: string;
  code: string;
  name: string;
  debit_cents: string;
  credit_cents: string;
  description: string | null;
};

const nullableId = (v: string | null) => (v === null ? null : Number(v));

/**
 * The journal transactions `ids` with their lines (code and name of each account) and reversedBy, in the order of `ids`: two
 * statements, their joins on the workspace too (on Citus each shard group answers for itself, CONTRACT §24).
 */
export async function loadTransactions(ids: readonly number[], tx?: Transaction): Promise<JournalTransactionObject[]> {
  if (ids.length === 0) return [];
  const p = new Params();
  const list = p.add(ids);
  const rows = await select<TransactionRow>(
    `SELECT t.id::text, t.workspace_id, t.kind, to_char(t.txn_date, 'YYYY-MM-DD') AS date, t.posted_at, t.entry_id::int,
            t.bank_match_id::text, t.reverses::text, r.id::text AS reversed_by, t.description, t.created_by::text
       FROM journal_transactions t LEFT JOIN journal_transactions r ON r.workspace_id = t.workspace_id AND r.reverses = t.id
      WHERE t.id = ANY(${list}::bigint[])`,
    p,
    tx,
  );
  const lines = await select<LineRow>(
    `SELECT l.transaction_id::text, l.category_id::text, c.code, c.name, l.debit_cents::text, l.credit_cents::text, l.description
       FROM journal_lines l JOIN accounting_categories c ON c.workspace_id = l.workspace_id AND c.id = l.category_id
      WHERE l.transaction_id = ANY(${list}::bigint[]) ORDER BY l.transaction_id, l.line_no`,
    p,
    tx,
  );
  const byTransaction = new Map<string, JournalTransactionObject['lines']>();
  for (const l of lines) {
    const of = byTransaction.get(l.transaction_id) ?? [];
    of.push({
      categoryId: l.category_id,
      code: l.code,
      name: l.name,
      debitCents: Number(l.debit_cents),
      creditCents: Number(l.credit_cents),
      description: l.description,
    });
    byTransaction.set(l.transaction_id, of);
  }
  const byId = new Map(rows.map((t) => [Number(t.id), t]));
  return ids.flatMap((id) => {
    const t = byId.get(id);
    if (!t) return [];
    return [
      {
        id,
        workspaceId: t.workspace_id,
        kind: t.kind,
        date: t.date,
        postedAt: t.posted_at.toISOString(),
        entryId: t.entry_id,
        bankMatchId: t.bank_match_id,
        reverses: nullableId(t.reverses),
        reversedBy: nullableId(t.reversed_by),
        description: t.description,
        createdBy: t.created_by,
        lines: byTransaction.get(t.id) ?? [],
      },
    ];
  });
}

/** GET /ledger/journal/{id}: 404 unless the caller is a member of its workspace (403 for a project-only member). */
export async function getTransaction(actor: Actor, id: number): Promise<JournalTransactionObject> {
  const p = new Params();
  const [row] = await select<{ workspace_id: number }>(`SELECT workspace_id FROM journal_transactions WHERE id = ${p.add(id)}`, p);
  requireBooksObject(actor, row?.workspace_id, 'Journal transaction');
  const [t] = await loadTransactions([id]);
  return t;
}

/**
 * GET /ledger/journal: keyset pages (CONTRACT §18) ordered by date, then id. The cursor names the
 * last transaction of a page (its date and id) and is bound to the workspace and the filters.
 */
export async function listJournal(
  actor: Actor,
  q: JournalQuery,
): Promise<{ items: JournalTransactionObject[]; limit: number; nextCursor: string | null }> {
  requireBooksReader(actor, q.workspaceId);
  const identity = listScope({
    list: 'journal',
    ws: q.workspaceId,
    from: q.from ?? null,
    to: q.to ?? null,
    entryId: q.entryId ?? null,
    categoryId: q.categoryId ?? null,
    kind: q.kind ?? null,
  });
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, identity);
  const p = new Params();
  const ws = p.add(q.workspaceId);
  const where = [`t.workspace_id = ${ws}`];
  if (q.from !== undefined) where.push(`t.txn_date >= ${p.add(q.from)}::date`);
  if (q.to !== undefined) where.push(`t.txn_date <= ${p.add(q.to)}::date`);
  if (q.entryId !== undefined) where.push(`t.entry_id = ${p.add(q.entryId)}`);
  if (q.kind !== undefined) where.push(`t.kind = ${p.add(q.kind)}`);
  if (q.categoryId !== undefined) {
    where.push(
      `t.id IN (SELECT l.transaction_id FROM journal_lines l WHERE l.workspace_id = ${ws} AND l.category_id = ${p.add(q.categoryId)}::uuid)`,
    );
  }
  if (after) where.push(`(t.txn_date, t.id) > (${p.add(after.key)}::date, ${p.add(after.id)}::bigint)`);
  const rows = await select<{ id: string; date: string }>(
    `SELECT t.id::text, to_char(t.txn_date, 'YYYY-MM-DD') AS date FROM journal_transactions t
      WHERE ${where.join(' AND ')} ORDER BY t.txn_date, t.id LIMIT ${p.add(q.limit + 1)}`,
    p,
  );
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > q.limit && last ? encodeCursor(identity, { key: last.date, id: Number(last.id) }) : null;
  return { items: await loadTransactions(page.map((r) => Number(r.id))), limit: q.limit, nextCursor };
}
