import { onCitus } from '../../db/distributed.js';

/**
 * The books' part of the create's insert statement (CONTRACT §23, DESIGN §2a): the ENTRY transaction of each new
 * entry without line items, posted by the statement that inserts the entry, so that a plain create posts without a
 * statement of its own. The CTEs read the new rows from the statement's `entry` CTE (RETURNING *) and its `items`
 * CTE (RETURNING entry_id); `postedColumn` tells, per returned entry, whether it was posted here.
 *
 * It posts what books_expected_entries (migration 0045, the definition) derives for such an entry: the receivable
 * (INCOME) or payable (EXPENSE) role and the entry's own category when it is of the entry's P&L type (else the
 * REVENUE or EXPENSE role), line 1 the debit, line 2 the credit, dated the entry's date. Everything else is left to
 * postEntries after the insert (reactions.ts): an entry with items (their split), one not valued (nothing to post),
 * one of a workspace whose roles are not there yet (books_ensure_roles), and any entry changed after its insert.
 * books_post_entries finds what this posted as it expects it and keeps it (tests/books/new-entry-posting.test.ts).
 */
const NEW_ENTRY_POSTING = {
  ctes: `books_roles AS (
  SELECT r.workspace_id,
         (array_agg(r.category_id) FILTER (WHERE r.role = 'RECEIVABLE'))[1] AS receivable,
         (array_agg(r.category_id) FILTER (WHERE r.role = 'PAYABLE'))[1] AS payable,
         (array_agg(r.category_id) FILTER (WHERE r.role = 'REVENUE'))[1] AS revenue,
         (array_agg(r.category_id) FILTER (WHERE r.role = 'EXPENSE'))[1] AS expense
    FROM ledger_roles r WHERE r.workspace_id IN (SELECT e.workspace_id FROM entry e) GROUP BY r.workspace_id
), books_plain AS (
  SELECT e.id, e.workspace_id, e.entry_date, e.amount_base_cents AS a, e.entry_type = 'INCOME' AS income,
         CASE e.entry_type WHEN 'INCOME' THEN r.receivable ELSE r.payable END AS side,
         CASE WHEN c.account_type = CASE e.entry_type WHEN 'INCOME' THEN 'REVENUE' ELSE 'EXPENSE' END THEN c.id
              WHEN e.entry_type = 'INCOME' THEN r.revenue ELSE r.expense END AS account
    FROM entry e JOIN books_roles r ON r.workspace_id = e.workspace_id
    LEFT JOIN accounting_categories c ON c.id = e.category_id AND c.workspace_id = e.workspace_id
   WHERE e.entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED') AND e.amount_base_cents > 0
     AND NOT EXISTS (SELECT 1 FROM items i WHERE i.entry_id = e.id)
), books_tx AS (
  INSERT INTO journal_transactions (workspace_id, kind, txn_date, entry_id)
  SELECT p.workspace_id, 'ENTRY', p.entry_date, p.id FROM books_plain p
   WHERE p.side IS NOT NULL AND p.account IS NOT NULL ORDER BY p.id
  RETURNING id, workspace_id, txn_date, entry_id
), books_lines AS (
  INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, txn_date, kind, entry_id)
  SELECT t.id, t.workspace_id, l.line_no, l.category_id, l.debit_cents, l.credit_cents, t.txn_date, 'ENTRY', t.entry_id
    FROM books_tx t JOIN books_plain p ON p.id = t.entry_id
   CROSS JOIN LATERAL (VALUES (1, CASE WHEN p.income THEN p.side ELSE p.account END, p.a, 0::bigint),
                              (2, CASE WHEN p.income THEN p.account ELSE p.side END, 0::bigint, p.a))
         AS l(line_no, category_id, debit_cents, credit_cents)
)`,
  postedColumn: 'EXISTS (SELECT 1 FROM books_tx t WHERE t.entry_id = entry.id) AS books_posted',
} as const;

export type NewEntryPosting = typeof NEW_ENTRY_POSTING;

/**
 * The CTEs for the create's insert, or undefined where the insert cannot carry them: on Citus the insert is routed
 * to one shard group, where they could not read the books' tables beside it, so the books post after it there.
 */
export async function newEntryPosting(): Promise<NewEntryPosting | undefined> {
  return (await onCitus()) ? undefined : NEW_ENTRY_POSTING;
}
