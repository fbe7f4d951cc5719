import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { accountingWorld, createCategory, type AccountingWorld } from '../accounting/helpers.js';
import { createTag, expectOk } from '../support/entries.js';
import type { Api, ApiResponse } from '../support/http.js';
import type { Permission } from '../../shared/permissions.js';

export type RuleWorld = AccountingWorld & { categories: [string, string]; tags: [number, number] };

/** A workspace with two projects, four parties, two active EXPENSE categories and two tags. */
export async function ruleWorld(api: Api, opts: { permissions?: readonly Permission[] } = {}): Promise<RuleWorld> {
  const w = await accountingWorld(api, { permissions: opts.permissions });
  const travel = await createCategory(w, { name: 'Travel' });
  const software = await createCategory(w, { name: 'Software' });
  const a = await createTag(api, w.token, w.workspaceId, 'rule-a');
  const b = await createTag(api, w.token, w.workspaceId, 'rule-b');
  return { ...w, categories: [travel.id, software.id], tags: [a.id, b.id] };
}

export const condition = (field: string, operator: string, value: unknown) => ({ field, operator, value });

export function ruleBody(w: { workspaceId: number }, overrides: Record<string, unknown> = {}) {
  return {
    workspaceId: w.workspaceId,
    name: 'Rule',
    conditions: [condition('description', 'contains', 'taxi')],
    actions: [{ type: 'SET_EXCLUDE_FROM_SYNC', value: true }],
    ...overrides,
  };
}

export const postRule = (w: RuleWorld, overrides: Record<string, unknown> = {}, token = w.token): Promise<ApiResponse> =>
  w.api.post('/rules', ruleBody(w, overrides), { token });

export async function createRule(w: RuleWorld, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await postRule(w, overrides);
  expectOk(res, 'create rule');
  return res.body;
}

export async function preview(
  w: RuleWorld,
  body: Record<string, unknown>,
): Promise<{ matched: number; items: { entryId: number; changes: any }[] }> {
  const res = await w.api.post('/rules/preview', { workspaceId: w.workspaceId, ...body }, { token: w.token });
  expectOk(res, 'preview');
  return res.body;
}

/** Every row of the tables an entry lives in, for proving that nothing changed. */
export async function ledgerState(workspaceId: number): Promise<Record<string, unknown[]>> {
  const q = (sql: string) => db().query(sql, { replacements: { ws: workspaceId }, type: QueryTypes.SELECT });
  return {
    entries: await q('SELECT * FROM entries WHERE workspace_id = :ws ORDER BY id'),
    tags: await q('SELECT * FROM entry_tags WHERE workspace_id = :ws ORDER BY entry_id, tag_id'),
    events: await q('SELECT * FROM entry_events WHERE workspace_id = :ws ORDER BY entry_id, seq'),
    documents: await q('SELECT * FROM entry_documents WHERE workspace_id = :ws ORDER BY id'),
    syncs: await q('SELECT s.* FROM accounting_syncs s JOIN entries e ON e.id = s.entry_id WHERE e.workspace_id = :ws ORDER BY s.id'),
  };
}
