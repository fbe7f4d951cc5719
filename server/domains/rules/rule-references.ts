import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { badRequest } from '../../lib/errors.js';
import type { RuleAction, RuleCondition } from '../../../shared/contracts/rules.js';

/** The ids a rule names, by kind. */
export type RuleRefs = { projectIds: number[]; partyIds: number[]; tagIds: number[]; categoryIds: string[] };

export function refsOf(conditions: RuleCondition[], actions: RuleAction[]): RuleRefs {
  const refs = { projectIds: new Set<number>(), partyIds: new Set<number>(), tagIds: new Set<number>(), categoryIds: new Set<string>() };
  for (const c of conditions) {
    if (c.field !== 'projectId' && c.field !== 'partyId') continue;
    const target = c.field === 'projectId' ? refs.projectIds : refs.partyIds;
    for (const id of c.operator === 'in' ? c.value : [c.value]) target.add(id);
  }
  for (const a of actions) {
    if (a.type === 'SET_CATEGORY') refs.categoryIds.add(a.categoryId);
    else if (a.type === 'ADD_TAGS') for (const id of a.tagIds) refs.tagIds.add(id);
    else if (a.type === 'SET_PROJECT') refs.projectIds.add(a.projectId);
    else if (a.type === 'SET_PARTY') refs.partyIds.add(a.partyId);
  }
  return { projectIds: [...refs.projectIds], partyIds: [...refs.partyIds], tagIds: [...refs.tagIds], categoryIds: [...refs.categoryIds] };
}

/** Which of `refs` are usable in workspace `ws` now: its projects, parties (with their names), tags not archived and active categories. */
export async function usableRefs(
  tx: Transaction | undefined,
  workspaceId: number,
  refs: RuleRefs,
): Promise<{ projectIds: Set<number>; partyNames: Map<number, string>; tagIds: Set<number>; categoryIds: Set<string> }> {
  const rows = await db().query<{ kind: string; id: string; name: string | null }>(
    `SELECT 'project' AS kind, id::text, NULL AS name FROM projects WHERE workspace_id = $1 AND id = ANY($2::int[])
     UNION ALL SELECT 'party', id::text, name FROM parties WHERE workspace_id = $1 AND id = ANY($3::int[])
     UNION ALL SELECT 'tag', id::text, NULL FROM tags WHERE workspace_id = $1 AND archived_at IS NULL AND id = ANY($4::int[])
     UNION ALL SELECT 'category', id::text, NULL FROM accounting_categories
                WHERE workspace_id = $1 AND is_active AND id = ANY($5::uuid[])`,
    { bind: [workspaceId, refs.projectIds, refs.partyIds, refs.tagIds, refs.categoryIds], type: QueryTypes.SELECT, transaction: tx },
  );
  const usable = {
    projectIds: new Set<number>(),
    partyNames: new Map<number, string>(),
    tagIds: new Set<number>(),
    categoryIds: new Set<string>(),
  };
  for (const r of rows) {
    if (r.kind === 'project') usable.projectIds.add(Number(r.id));
    else if (r.kind === 'party') usable.partyNames.set(Number(r.id), r.name ?? '');
    else if (r.kind === 'tag') usable.tagIds.add(Number(r.id));
    else usable.categoryIds.add(r.id);
  }
  return usable;
}

/** Every id a rule names must be the workspace's (categories active, tags not archived), else 400 (CONTRACT §16). */
export async function assertRefsOfWorkspace(tx: Transaction | undefined, workspaceId: number, refs: RuleRefs): Promise<void> {
  const usable = await usableRefs(tx, workspaceId, refs);
  const project = refs.projectIds.find((id) => !usable.projectIds.has(id));
  if (project !== undefined) throw badRequest(`Project ${project} is not a project of this workspace`);
  const party = refs.partyIds.find((id) => !usable.partyNames.has(id));
  if (party !== undefined) throw badRequest(`Party ${party} is not a party of this workspace`);
  const tag = refs.tagIds.find((id) => !usable.tagIds.has(id));
  if (tag !== undefined) throw badRequest(`Tag ${tag} is not a tag of this workspace`);
  const category = refs.categoryIds.find((id) => !usable.categoryIds.has(id));
  if (category !== undefined) throw badRequest(`Category ${category} is not an active category of this workspace`);
}
