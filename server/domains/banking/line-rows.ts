import { lockById } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { BankLineObject } from '../../../shared/contracts/banking.js';

export type LineRow = {
  id: string;
  workspace_id: number;
  bank_account_id: string;
  statement_id: string;
  booking_date: string;
  value_date: string | null;
  amount_cents: number;
  currency: string;
  description: string | null;
  counterparty_name: string | null;
  counterparty_account: string | null;
  reference: string | null;
  external_id: string | null;
  status: BankLineObject['status'];
  match_id: string | null;
  ignored_reason: string | null;
  created_at: Date;
};

export const LINE_COLUMNS = `id, workspace_id, bank_account_id, statement_id, booking_date, value_date, amount_cents, currency, description,
  counterparty_name, counterparty_account, reference, external_id, status, match_id, ignored_reason, created_at`;

export const presentLine = (r: LineRow): BankLineObject => ({
  id: Number(r.id),
  bankAccountId: r.bank_account_id,
  statementId: r.statement_id,
  bookingDate: r.booking_date,
  valueDate: r.value_date,
  amountCents: r.amount_cents,
  currency: r.currency.trim(),
  description: r.description,
  counterpartyName: r.counterparty_name,
  counterpartyAccount: r.counterparty_account,
  reference: r.reference,
  externalId: r.external_id,
  status: r.status,
  matchId: r.match_id,
  ignoredReason: r.ignored_reason,
  createdAt: r.created_at.toISOString(),
});

/** A line of a workspace the actor is a member of, or 404. */
export async function loadLine(actor: Actor, id: number, tx?: Transaction, forUpdate = false): Promise<LineRow> {
  const [row] = await db().query<LineRow>(
    `SELECT ${LINE_COLUMNS} FROM bank_lines WHERE id = :id${forUpdate ? await lockById('bank_lines', id, tx, 'FOR UPDATE') : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('Bank line');
  return row;
}
