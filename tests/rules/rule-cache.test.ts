import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { changeListener } from '../../server/db/change-listener.js';
import { loadRuleSet, ruleCache } from '../../server/domains/rules/index.js';
import { startServer, type Api } from '../support/http.js';
import { createCategory, condition, createRule, ruleWorld, type RuleWorld } from '../support/factories/index.js';

/**
 * The per-process rule-set cache (loadRuleSet): filled once per workspace, forgotten when this
 * process writes a rule and — through migration 0016's triggers on `rules_changed` — when anything
 * writes the rules, or the categories, tags and parties they name, behind this process's back.
 */

let api: Api;
let w: RuleWorld;

beforeAll(async () => {
  api = await startServer();
  w = await ruleWorld(api);
  await changeListener.settled(); // LISTEN is up: the cache serves from memory only then
});

const held = async () => {
  await changeListener.settled();
  return ruleCache.holds(w.workspaceId);
};

describe('rule-set cache', () => {
  it('loads the active rules in priority order, and keeps them', async () => {
    const second = await createRule(w, { name: 'second', priority: 2 });
    const first = await createRule(w, { name: 'first', priority: 1 });
    await createRule(w, { name: 'inactive', priority: 0, isActive: false });
    // the writes' own notifications first: one arriving after the load would (rightly) forget the set
    await changeListener.settled();
    const set = await loadRuleSet(undefined, w.workspaceId);
    expect(set.rules.map((r) => r.id)).toEqual([first.id, second.id]);
    expect(await held()).toBe(true);
    expect(await loadRuleSet(undefined, w.workspaceId)).toBe(set);
  });

  it('a rule written through the API is forgotten at once', async () => {
    await loadRuleSet(undefined, w.workspaceId);
    const rule = await createRule(w, { name: 'new' });
    expect(ruleCache.holds(w.workspaceId)).toBe(false);
    await loadRuleSet(undefined, w.workspaceId);
    expect((await api.patch(`/rules/${rule.id}`, { priority: 50 }, { token: w.token })).status).toBe(200);
    expect(ruleCache.holds(w.workspaceId)).toBe(false);
  });

  it('a change made by another process (direct SQL) is forgotten when its notification arrives', async () => {
    await changeListener.settled(); // the previous test's writes are announced before this load
    await loadRuleSet(undefined, w.workspaceId);
    expect(await held()).toBe(true);
    await db().query('UPDATE rules SET is_active = false WHERE workspace_id = :ws', { replacements: { ws: w.workspaceId } });
    expect(await held()).toBe(false);
    expect((await loadRuleSet(undefined, w.workspaceId)).rules).toEqual([]);
  });

  it('an action naming a category deactivated since is dropped from the loaded set', async () => {
    const category = await createCategory(w, { name: 'Short-lived' });
    const rule = await createRule(w, {
      conditions: [condition('description', 'contains', 'x')],
      actions: [
        { type: 'SET_CATEGORY', categoryId: category.id },
        { type: 'ADD_TAGS', tagIds: [w.tags[0]] },
      ],
    });
    const actionsOf = async () => (await loadRuleSet(undefined, w.workspaceId)).rules.find((r) => r.id === rule.id)!.actions;
    expect(await actionsOf()).toHaveLength(2);
    expect((await api.del(`/accounting/categories/${category.id}`, { token: w.token })).status).toBe(200);
    expect(await held()).toBe(false);
    expect(await actionsOf()).toEqual([{ type: 'ADD_TAGS', tagIds: [w.tags[0]] }]);
  });
});
