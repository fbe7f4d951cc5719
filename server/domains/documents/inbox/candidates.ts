import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import type { ReadFields } from '../extraction/fields.js';
import type { Candidate } from './scoring.js';

/** Entries a document may belong to: not VOIDED, CANCELLED or REJECTED (they take no documents). */
const LIVE = `e.entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED')`;
const COLUMNS = `e.id, e.amount_cents, e.base_currency, e.entry_date::text AS entry_date, e.reference, e.description,
       p.name AS party_name, p.tax_id AS party_tax_id
  FROM entries e
  LEFT JOIN parties p ON p.workspace_id = e.workspace_id AND p.id = CASE WHEN e.entry_type = 'INCOME' THEN e.from_party_id ELSE e.to_party_id END`;
const POOL = 60;

/**
 * The ids of the entries of the named parties (either side) nearest the issue date within 45 days: for each
 * party, side and direction the POOL nearest by date (then newest id), each an ordered walk of its
 * (workspace, party, date) index. Their union holds the pool's POOL nearest overall, and reads at most
 * 4 × POOL rows per party, however many entries a busy party has in the window (a sort of all of them
 * put the suggestions' p95 above 50 ms at 1,000,000 entries).
 */
function nearestOfPartiesSql(reach: string): string {
  const near = (side: 'to_party_id' | 'from_party_id', after: boolean) =>
    `(SELECT e.id FROM entries e
       WHERE e.workspace_id = :ws AND e.${side} = pp.id AND ${LIVE} ${reach}
         AND e.entry_date ${after ? 'BETWEEN CAST(:issue AS date) AND CAST(:issue AS date) + 45' : 'BETWEEN CAST(:issue AS date) - 45 AND CAST(:issue AS date) - 1'}
       ORDER BY e.entry_date ${after ? 'ASC' : 'DESC'}, e.id DESC LIMIT ${POOL})`;
  return `SELECT n.id FROM (SELECT id FROM parties WHERE workspace_id = :ws
                                  AND (lower(name) = ANY (ARRAY[:names]::text[]) OR tax_id = ANY (ARRAY[:taxIds]::text[]))) pp
            CROSS JOIN LATERAL (${near('to_party_id', true)} UNION ALL ${near('to_party_id', false)}
                                UNION ALL ${near('from_party_id', true)} UNION ALL ${near('from_party_id', false)}) n`;
}

/**
 * The candidate pool, each part on an index: entries of the exact total and currency (closest dates
 * first), and entries of a party with the supplier's or customer's name or tax id within 45 days of
 * the issue date. The document number ranks these (scoring.ts) but does not find entries itself: a
 * substring search of every reference (the trigram index) costs tens of milliseconds at 1,000,000
 * entries, above the suggestions' budget.
 */
export async function candidatesFor(workspaceId: number, read: ReadFields, tx?: Transaction, projectIds?: number[]): Promise<Candidate[]> {
  const issue = read.issueDate;
  const reach = projectIds ? 'AND e.project_id = ANY (ARRAY[:projects]::int[])' : '';
  const parts: string[] = [];
  if (read.totalCents !== null && read.totalCents > 0 && read.currency)
    parts.push(`(SELECT ${COLUMNS} WHERE e.workspace_id = :ws AND e.amount_cents = :total AND e.base_currency = :currency AND ${LIVE} ${reach}
       ORDER BY ${issue ? 'abs(e.entry_date - CAST(:issue AS date)),' : ''} e.id DESC LIMIT ${POOL})`);
  const names = [read.supplier.name, read.customer.name].filter((n): n is string => !!n).map((n) => n.toLowerCase());
  const taxIds = [read.supplier.taxId, read.customer.taxId].filter((t): t is string => !!t);
  if (issue && (names.length || taxIds.length))
    parts.push(`(SELECT ${COLUMNS} WHERE e.workspace_id = :ws AND e.id IN (${nearestOfPartiesSql(reach)})
       ORDER BY abs(e.entry_date - CAST(:issue AS date)), e.id DESC LIMIT ${POOL})`);
  if (parts.length === 0) return [];
  const rows = await db().query<Candidate>(parts.join(' UNION '), {
    replacements: {
      ws: workspaceId,
      total: read.totalCents,
      currency: read.currency,
      issue,
      names: names.length ? names : [''],
      taxIds: taxIds.length ? taxIds : [''],
      projects: projectIds?.length ? projectIds : [0],
    },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return rows;
}
