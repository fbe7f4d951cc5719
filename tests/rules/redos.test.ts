import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { createEntry, condition, createRule, postRule, ruleWorld, type RuleWorld } from '../support/factories/index.js';

/**
 * CONTRACT §16: "no pattern can stall the server". The patterns run through RE2 (linear time):
 * what RE2 refuses (backreferences) is a 400, and a catastrophic pattern over the longest
 * description an entry can hold completes while the server keeps answering other requests.
 * No timing is asserted: a backtracking engine would not finish `(a+)+$` over 2,000 characters
 * in any test run, so completing at all is the proof.
 */

let api: Api;
let w: RuleWorld;

beforeAll(async () => {
  api = await startServer();
  w = await ruleWorld(api);
});

describe('catastrophic patterns', () => {
  it('backreferences are a 400 (the engine is RE2, not a backtracking one)', async () => {
    expectErrorBody(await postRule(w, { conditions: [condition('description', 'matches', '^(a+)\\1$')] }), 400, 'BAD_REQUEST');
  });

  it('(a+)+$ over the longest descriptions completes, and another request is answered meanwhile', async () => {
    const long = `${'a'.repeat(1_999)}b`;
    for (let i = 0; i < 5; i++) await createEntry(w, { description: long });
    const matching = await createEntry(w, { description: 'a'.repeat(2_000) });
    const rule = await createRule(w, { conditions: [condition('description', 'matches', '(a+)+$')] });
    const body = { workspaceId: w.workspaceId, conditions: rule.conditions, actions: rule.actions };
    const [previewed, health, applied] = await Promise.all([
      api.post('/rules/preview', body, { token: w.token }),
      api.get('/healthz'),
      api.post(`/rules/${rule.id}/apply`, {}, { token: w.token }),
    ]);
    expect(health.status).toBe(200);
    expect(previewed.status).toBe(200);
    expect(previewed.body).toEqual({
      matched: 1,
      items: [{ entryId: matching.id, changes: { excludeFromSync: { from: false, to: true } } }],
    });
    expect(applied.status).toBe(200);
    expect(applied.body.matched).toBe(1);
  });
});
