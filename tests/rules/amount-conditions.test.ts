import { beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Api } from '../support/http.js';
import { createEntry, condition, createRule, ruleWorld, type RuleWorld } from '../support/factories/index.js';
import { preview } from './helpers.js';

/** CONTRACT §16: an amount condition's value is an integer 0..1e18, so `gt 0` is "any amount". */
let api: Api;
let w: RuleWorld;
beforeAll(async () => {
  api = await startServer();
  w = await ruleWorld(api);
});

describe('amount conditions (CONTRACT §16)', () => {
  it('gt 0 is accepted as written and matches every new entry', async () => {
    const rule = await createRule(w, {
      conditions: [condition('amountCents', 'gt', 0)],
      actions: [{ type: 'SET_EXCLUDE_FROM_SYNC', value: true }],
    });
    expect(rule.conditions).toEqual([condition('amountCents', 'gt', 0)]);
    for (const amountCents of [1, 999_999_999_999]) expect((await createEntry(w, { amountCents })).excludeFromSync).toBe(true);
    expect((await preview(w, { match: 'ALL', conditions: rule.conditions, actions: rule.actions })).matched).toBe(2);
  });

  it('0 works as a bound of gte, lte and between', async () => {
    const r = await createRule(w, {
      name: 'small',
      conditions: [condition('amountCents', 'between', [0, 100]), condition('amountCents', 'gte', 0)],
      actions: [{ type: 'SET_DESCRIPTION', description: 'small' }],
    });
    expect(r.conditions[0].value).toEqual([0, 100]);
    expect((await createEntry(w, { amountCents: 100 })).description).toBe('small');
    expect((await createEntry(w, { amountCents: 101 })).description).not.toBe('small');
    const none = await preview(w, { match: 'ALL', conditions: [condition('amountCents', 'lte', 0)], actions: r.actions });
    expect(none.matched).toBe(0);
  });
});
