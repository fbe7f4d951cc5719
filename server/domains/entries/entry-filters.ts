import type { EntryFilters } from '../../../shared/contracts/entries.js';
import type { WorkspaceReach } from '../../lib/scope.js';

export const SORT_COLUMNS = { entryDate: 'e.entry_date', amountCents: 'e.amount_cents', createdAt: 'e.created_at' } as const;
/** The SQL type of each sort column (a keyset cursor's key is its text form, cast back with this). */
export const SORT_TYPES = { entryDate: 'date', amountCents: 'bigint', createdAt: 'timestamptz' } as const;

/** The ILIKE test of a search pattern parameter on description and reference (`e` = the entries row). */
export const searchMatch = (pattern: string, row = 'e') => `(${row}.description ILIKE ${pattern} OR ${row}.reference ILIKE ${pattern})`;

/** Escapes LIKE wildcards so that `%` and `_` in a search are literal. */
export const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The WHERE clause and ORDER BY of entry lists and exports, with positional parameters
 * ($1…) so the same SQL serves Sequelize queries and streaming cursors.
 */
export function entryFilterSql(
  f: EntryFilters,
  reach: WorkspaceReach,
  opts: { search?: boolean } = {},
): { where: string; orderBy: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const clauses = [`e.workspace_id = ${p(f.workspaceId)}`];
  if (!reach.all) clauses.push(`e.project_id = ANY(${p(reach.projectIds)}::int[])`);
  if (f.projectId !== undefined) clauses.push(`e.project_id = ${p(f.projectId)}`);
  if (f.tagIds?.length) {
    clauses.push(
      `EXISTS (SELECT 1 FROM entry_tags et WHERE et.workspace_id = e.workspace_id AND et.entry_id = e.id AND et.tag_id = ANY(${p(f.tagIds)}::int[]))`,
    );
  }
  if (f.entryType) clauses.push(`e.entry_type = ${p(f.entryType)}`);
  if (f.entryStatus) clauses.push(`e.entry_status = ${p(f.entryStatus)}`);
  if (f.fromDate) clauses.push(`e.entry_date >= ${p(f.fromDate)}::date`);
  if (f.toDate) clauses.push(`e.entry_date <= ${p(f.toDate)}::date`);
  if (f.partyId !== undefined) {
    const party = p(f.partyId);
    clauses.push(`(e.from_party_id = ${party} OR e.to_party_id = ${party})`);
  }
  if (f.amountMin !== undefined) clauses.push(`e.amount_cents >= ${p(f.amountMin)}`);
  if (f.amountMax !== undefined) clauses.push(`e.amount_cents <= ${p(f.amountMax)}`);
  // `search: false` leaves the search out: the list service then chooses how to apply it (list.service.ts)
  if (f.search && opts.search !== false) clauses.push(searchMatch(p(likePattern(f.search))));
  if (f.isReconciled !== undefined) clauses.push(`e.is_reconciled = ${p(f.isReconciled)}`);
  const dir = f.sortOrder === 'ASC' ? 'ASC' : 'DESC';
  return { where: clauses.join(' AND '), orderBy: `${SORT_COLUMNS[f.sortBy]} ${dir}, e.id ${dir}`, params };
}
