import type { Permission } from '../../../shared/permissions.js';
import { expectOk } from '../entries.js';
import type { Api, ApiResponse } from '../http.js';
import { accountingWorld, createCategory, type AccountingWorld } from './accounting.js';
import { makeTag } from './tags.js';

export type RuleWorld = AccountingWorld & { categories: [string, string]; tags: [number, number] };

/** A workspace with two projects, four parties, two active EXPENSE categories and two tags. */
export async function ruleWorld(api: Api, opts: { permissions?: readonly Permission[] } = {}): Promise<RuleWorld> {
  const w = await accountingWorld(api, { permissions: opts.permissions });
  const travel = await createCategory(w, { name: 'Travel' });
  const software = await createCategory(w, { name: 'Software' });
  const a = await makeTag(api, w.token, w.workspaceId, 'rule-a');
  const b = await makeTag(api, w.token, w.workspaceId, 'rule-b');
  return { ...w, categories: [travel.id, software.id], tags: [a, b] };
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

/** `POST /rules` (the raw answer: some tests expect it to fail). */
export const postRule = (w: RuleWorld, overrides: Record<string, unknown> = {}, token = w.token): Promise<ApiResponse> =>
  w.api.post('/rules', ruleBody(w, overrides), { token });

export async function createRule(w: RuleWorld, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await postRule(w, overrides);
  expectOk(res, 'create rule');
  return res.body;
}
