import { todayUtc } from '../../../lib/dates.js';
import type { Actor } from '../../../lib/scope.js';
import type { OpenItems, OpenItemsQuery } from '../../../../shared/contracts/books-read.js';
import { requireBooksReader } from './access.js';
import { baseCurrency, cents, Params, select } from './sql.js';

type Row = { entry_id: number; entry_date: string; party_id: number | null; amount: string; age: number };

const bucketOf = (age: number): keyof OpenItems['buckets'] =>
  age <= 0 ? 'current' : age <= 30 ? 'd1_30' : age <= 60 ? 'd31_60' : age <= 90 ? 'd61_90' : 'over90';

/**
 * GET /ledger/open-items (CONTRACT §23): the entries whose lines on the side's role account
 * (RECEIVABLE: debits less credits; PAYABLE: credits less debits) dated up to asOf leave an amount
 * open, aged from their entry date. One aggregate over the role account's index range.
 */
export async function openItems(actor: Actor, q: OpenItemsQuery): Promise<OpenItems> {
  requireBooksReader(actor, q.workspaceId);
  const asOf = q.asOf ?? todayUtc();
  const p = new Params();
  const ws = p.add(q.workspaceId);
  const d = p.add(asOf);
  const sign = q.side === 'RECEIVABLE' ? 'l.debit_cents - l.credit_cents' : 'l.credit_cents - l.debit_cents';
  const rows = await select<Row>(
    `SELECT o.entry_id::int AS entry_id, to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date,
            CASE WHEN e.entry_type = 'INCOME' THEN e.from_party_id ELSE e.to_party_id END AS party_id,
            o.amount::text AS amount, (${d}::date - e.entry_date)::int AS age
       FROM (SELECT l.entry_id, sum(${sign}) AS amount
               FROM ledger_roles r JOIN journal_lines l ON l.workspace_id = r.workspace_id AND l.category_id = r.category_id
              WHERE r.workspace_id = ${ws} AND r.role = ${p.add(q.side)} AND l.txn_date <= ${d}::date AND l.entry_id IS NOT NULL
              GROUP BY l.entry_id HAVING sum(${sign}) <> 0) o
       JOIN entries e ON e.id = o.entry_id AND e.workspace_id = ${ws}
      ORDER BY e.entry_date, o.entry_id`,
    p,
  );
  const buckets = { current: 0, d1_30: 0, d31_60: 0, d61_90: 0, over90: 0 };
  const items = rows.map((r) => {
    const amountCents = cents(r.amount);
    buckets[bucketOf(r.age)] += amountCents;
    return { entryId: r.entry_id, entryDate: r.entry_date, partyId: r.party_id, amountCents, ageDays: r.age };
  });
  return { asOf, currency: await baseCurrency(q.workspaceId), items, buckets };
}
