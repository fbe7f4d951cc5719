import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { todayUtc } from '../../lib/dates.js';
import type { Actor } from '../../lib/scope.js';
import type { ReconciliationStatus } from '../../../shared/contracts/banking.js';
import { loadAccount } from './account-rows.js';

type Sums = {
  matched_n: number;
  matched_sum: string;
  unmatched_n: number;
  unmatched_sum: string;
  ignored_n: number;
  ignored_sum: string;
};

const cents = (v: string | number | null) => (v === null ? null : Number(v));

/** GET /bank-accounts/{id}/reconciliation?asOf= (CONTRACT §14): sums in SQL, one pass over the account's lines. */
export async function reconciliationStatus(actor: Actor, input: { id: string; asOf?: string }): Promise<ReconciliationStatus> {
  const account = await loadAccount(actor, input.id);
  const asOf = input.asOf ?? todayUtc();
  const [s] = await db().query<Sums>(
    `SELECT count(*) FILTER (WHERE status = 'MATCHED')::int AS matched_n,
            COALESCE(sum(amount_cents) FILTER (WHERE status = 'MATCHED'), 0)::text AS matched_sum,
            count(*) FILTER (WHERE status = 'UNMATCHED')::int AS unmatched_n,
            COALESCE(sum(amount_cents) FILTER (WHERE status = 'UNMATCHED'), 0)::text AS unmatched_sum,
            count(*) FILTER (WHERE status = 'IGNORED')::int AS ignored_n,
            COALESCE(sum(amount_cents) FILTER (WHERE status = 'IGNORED'), 0)::text AS ignored_sum
       FROM bank_lines WHERE bank_account_id = :id AND booking_date <= :asOf`,
    { replacements: { id: account.id, asOf }, type: QueryTypes.SELECT },
  );
  const [last] = await db().query<{ id: string; closing: string | null; opening: string | null; lines_sum: string }>(
    `SELECT st.id, st.closing_balance_cents::text AS closing, st.opening_balance_cents::text AS opening, st.lines_sum_cents::text AS lines_sum
       FROM bank_statements st WHERE st.bank_account_id = :id ORDER BY st.created_at DESC, st.id DESC LIMIT 1`,
    { replacements: { id: account.id }, type: QueryTypes.SELECT },
  );
  const matched = Number(s.matched_sum);
  const unmatched = Number(s.unmatched_sum);
  const ignored = Number(s.ignored_sum);
  const computed = last && last.opening !== null ? Number(last.opening) + Number(last.lines_sum) : null;
  const closing = last ? cents(last.closing) : null;
  return {
    bankAccountId: account.id,
    asOf,
    openingBalanceCents: account.opening_balance_cents,
    statementBalanceCents: account.opening_balance_cents + matched + unmatched + ignored,
    matched: { count: s.matched_n, amountCents: matched },
    unmatched: { count: s.unmatched_n, amountCents: unmatched },
    ignored: { count: s.ignored_n, amountCents: ignored },
    lastStatement: last
      ? {
          id: last.id,
          closingBalanceCents: closing,
          computedBalanceCents: computed,
          agrees: computed === null || closing === null ? null : computed === closing,
        }
      : null,
  };
}
