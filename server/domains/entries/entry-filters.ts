import type { EntryFilters } from '../../../shared/contracts/entries.js';
import type { WorkspaceReach } from '../../lib/scope.js';

const SORT_COLUMNS = { entryDate: 'e.entry_date', amountCents: 'e.amount_cents', createdAt: 'e.created_at' } as const;

/** Escapes LIKE wildcards so that `%` and `_` in a search are literal. */
export const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The WHERE clause and ORDER BY of entry lists and exports, with positional parameters
 * ($1…) so the same SQL serves Sequelize queries and streaming cursors.
 */
export function entryFilterSql(f: EntryFilters, reach: WorkspaceReach): { where: string; orderBy: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const clauses = [`e.workspace_id = ${p(f.workspaceId)}`];
  if (!reach.all) clauses.push(`e.project_id = ANY(${p(reach.projectIds)}::int[])`);
  if (f.projectId !== undefined) clauses.push(`e.project_id = ${p(f.projectId)}`);
  if (f.tagIds?.length) {
    clauses.push(`EXISTS (SELECT 1 FROM entry_tags et WHERE et.entry_id = e.id AND et.tag_id = ANY(${p(f.tagIds)}::int[]))`);
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
  if (f.search) {
    const pattern = p(likePattern(f.search));
    clauses.push(`(e.description ILIKE ${pattern} OR e.reference ILIKE ${pattern})`);
  }
  if (f.isReconciled !== undefined) clauses.push(`e.is_reconciled = ${p(f.isReconciled)}`);
  const dir = f.sortOrder === 'ASC' ? 'ASC' : 'DESC';
  return { where: clauses.join(' AND '), orderBy: `${SORT_COLUMNS[f.sortBy]} ${dir}, e.id ${dir}`, params };
}
