import { lockWorkspace } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { badRequest, conflict } from '../../lib/errors.js';
import { creatorOf, scope, type Actor } from '../../lib/scope.js';
import { publishMany } from '../outbound-webhooks/index.js';
import type { ManualJournalInput } from '../../../shared/contracts/books-write.js';
import type { JournalTransactionObject } from '../../../shared/contracts/books-read.js';
import { requireBooksObject } from './read/access.js';
import { loadTransactions } from './read/journal.js';
import { ensureRoles } from './roles.service.js';

/**
 * Manual journals (CONTRACT §23): POST /ledger/journal posts kind MANUAL, POST /ledger/journal/{id}/reverse its
 * REVERSAL. Both need accounting.manage (checked by the procedure) and membership of the workspace. A date in a
 * closed period fails at the database (journal_closed_period → 409), as every posting does.
 */
export async function postManualJournal(actor: Actor, input: ManualJournalInput): Promise<JournalTransactionObject> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  if (input.lines.length < 2) throw badRequest('lines: a journal has 2 to 200 lines');
  for (const [i, l] of input.lines.entries()) {
    if ((l.debitCents === undefined) === (l.creditCents === undefined)) {
      throw badRequest(`lines[${i}]: exactly one of debitCents or creditCents`);
    }
  }
  const debits = input.lines.reduce((s, l) => s + (l.debitCents ?? 0), 0);
  const credits = input.lines.reduce((s, l) => s + (l.creditCents ?? 0), 0);
  if (debits !== credits) throw badRequest(`The debits (${debits}) and the credits (${credits}) of the journal differ`);
  return transaction(async (tx) => {
    await ensureRoles(tx, input.workspaceId);
    await assertPostable(
      tx,
      input.workspaceId,
      input.lines.map((l) => l.categoryId),
    );
    const [{ id }] = await db().query<{ id: string }>(
      `WITH t AS (
         INSERT INTO journal_transactions (workspace_id, kind, txn_date, description, created_by)
         VALUES ($1, 'MANUAL', $2, $3, $4) RETURNING id, txn_date
       ), l AS (
         INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, description, txn_date, kind)
         SELECT t.id, $1, x.n, x.category_id, x.debit, x.credit, x.description, t.txn_date, 'MANUAL'
           FROM t, unnest($5::uuid[], $6::bigint[], $7::bigint[], $8::text[]) WITH ORDINALITY AS x(category_id, debit, credit, description, n)
       )
       SELECT id::text FROM t`,
      {
        bind: [
          input.workspaceId,
          input.date,
          input.description,
          creatorOf(actor),
          input.lines.map((l) => l.categoryId),
          input.lines.map((l) => l.debitCents ?? 0),
          input.lines.map((l) => l.creditCents ?? 0),
          input.lines.map((l) => l.description ?? null),
        ],
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return published(tx, Number(id));
  });
}

/** The transaction as posted, with its journal.posted event (CONTRACT §15: MANUAL and OPENING). */
async function published(tx: Transaction, id: number): Promise<JournalTransactionObject> {
  const [posted] = await loadTransactions([id], tx);
  await publishMany(tx, [{ workspaceId: posted.workspaceId, type: 'journal.posted', object: posted }]);
  return posted;
}

/** journal.posted of OPENING transactions posted by a bank account's change. */
export async function publishPosted(tx: Transaction, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const posted = await loadTransactions(ids, tx);
  await publishMany(
    tx,
    posted.map((p) => ({ workspaceId: p.workspaceId, type: 'journal.posted' as const, object: p })),
  );
}

/** 400 unless every category is an active one of the workspace and none is the RECEIVABLE or PAYABLE account. */
async function assertPostable(tx: Transaction, workspaceId: number, categoryIds: string[]): Promise<void> {
  const rows = await db().query<{ id: string; code: string; is_active: boolean; role: string | null }>(
    `SELECT c.id, c.code, c.is_active, r.role
       FROM accounting_categories c LEFT JOIN ledger_roles r ON r.category_id = c.id AND r.workspace_id = c.workspace_id
                                                          AND r.role IN ('RECEIVABLE', 'PAYABLE')
      WHERE c.workspace_id = $1 AND c.id = ANY($2::uuid[])`,
    { bind: [workspaceId, [...new Set(categoryIds)]], type: QueryTypes.SELECT, transaction: tx },
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const [i, id] of categoryIds.entries()) {
    const c = byId.get(id);
    if (!c) throw badRequest(`lines[${i}].categoryId: ${id} is not a category of workspace ${workspaceId}`);
    if (!c.is_active) throw badRequest(`lines[${i}].categoryId: category ${c.code} is inactive`);
    if (c.role) throw badRequest(`lines[${i}].categoryId: ${c.code} is the ${c.role} account; open items come from entries only`);
  }
}

/**
 * POST /ledger/journal/{id}/reverse: only MANUAL transactions, once (409 otherwise; the others follow their
 * entries and bank accounts); dated `date` or the original's.
 */
export async function reverseManualJournal(actor: Actor, id: number, date?: string): Promise<JournalTransactionObject> {
  return transaction(async (tx) => {
    // on Citus the lock names the workspace (a constant, in the subquery too: one shard group); plain PostgreSQL reads by id
    const lockWs = (await lockWorkspace('journal_transactions', id, tx)) ?? 't.workspace_id';
    const [t] = await db().query<{ workspace_id: number; kind: string; txn_date: string; reversed: boolean; description: string | null }>(
      `SELECT t.workspace_id, t.kind, to_char(t.txn_date, 'YYYY-MM-DD') AS txn_date, t.description,
              EXISTS (SELECT 1 FROM journal_transactions r WHERE r.reverses = t.id AND r.workspace_id = ${lockWs}) AS reversed
         FROM journal_transactions t WHERE t.id = $1 AND t.workspace_id = ${lockWs} FOR UPDATE`,
      { bind: [id], type: QueryTypes.SELECT, transaction: tx },
    );
    const ws = requireBooksObject(actor, t?.workspace_id, 'Journal transaction');
    if (t.kind !== 'MANUAL') throw conflict(`Journal transaction ${id} is ${t.kind}: only MANUAL transactions are reversed by hand`);
    if (t.reversed) throw conflict(`Journal transaction ${id} is reversed already`);
    const [{ id: reversal }] = await db().query<{ id: string }>(
      `WITH t AS (
         INSERT INTO journal_transactions (workspace_id, kind, txn_date, reverses, description, created_by)
         VALUES ($1, 'REVERSAL', $2, $3, $4, $5) RETURNING id, txn_date
       ), l AS (
         INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, description, txn_date, kind)
         SELECT t.id, $1, o.line_no, o.category_id, o.credit_cents, o.debit_cents, o.description, t.txn_date, 'REVERSAL'
           FROM t, journal_lines o WHERE o.workspace_id = $1 AND o.transaction_id = $3
       )
       SELECT id::text FROM t`,
      {
        bind: [ws, date ?? t.txn_date, id, t.description === null ? null : `Reversal: ${t.description}`.slice(0, 2000), creatorOf(actor)],
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    const [posted] = await loadTransactions([Number(reversal)], tx);
    return posted;
  });
}
