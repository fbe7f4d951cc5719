import { describe, expect, it } from 'vitest';
import {
  compileRule,
  evaluateRules,
  RulePatternError,
  type RuleDefinition,
  type RuleDraft,
  type RuleSet,
} from '../../server/domains/rules/engine.js';

/**
 * The engine alone (pure, in memory): the order rules run in, each seeing the changes of the ones
 * before, stopProcessing, triggers, and RE2's linear time on a catastrophic pattern. Conditions and
 * actions one by one are proven through HTTP (preview.test.ts, apply.test.ts).
 */

const draft = (overrides: Partial<RuleDraft> = {}): RuleDraft => ({
  entryType: 'EXPENSE',
  amountCents: 5_000,
  baseCurrency: 'USD',
  projectId: 1,
  fromPartyId: 10,
  toPartyId: 20,
  description: 'Uber trip',
  reference: null,
  categoryId: null,
  tagIds: [],
  excludeFromSync: false,
  ...overrides,
});

let n = 0;
const rule = (overrides: Partial<RuleDefinition>): RuleDefinition => ({
  id: `r${++n}`,
  name: `rule ${n}`,
  match: 'ALL',
  conditions: [{ field: 'description', operator: 'contains', value: 'uber' }],
  actions: [{ type: 'ADD_TAGS', tagIds: [n] }],
  stopProcessing: false,
  triggers: ['CREATE', 'INGEST', 'BANK'],
  ...overrides,
});
const set = (...rules: RuleDefinition[]): RuleSet => ({ workspaceId: 1, rules: rules.map(compileRule) });
const names = new Map([
  [10, 'Our company'],
  [20, 'Uber BV'],
  [30, 'Lyft Inc'],
]);
const ctx = { partyNames: names };

describe('evaluateRules', () => {
  it('runs in the order given (priority order), each rule seeing the changes of the ones before', () => {
    const rename = rule({ actions: [{ type: 'SET_DESCRIPTION', description: 'Taxi' }] });
    const taxi = rule({
      conditions: [{ field: 'description', operator: 'equals', value: 'taxi' }],
      actions: [{ type: 'ADD_TAGS', tagIds: [7] }],
    });
    const stillUber = rule({ actions: [{ type: 'ADD_TAGS', tagIds: [8] }] });
    const result = evaluateRules(set(rename, taxi, stillUber), draft(), ctx, 'CREATE');
    expect(result.draft.description).toBe('Taxi');
    expect(result.draft.tagIds).toEqual([7]);
    expect(result.applied.map((a) => a.ruleId)).toEqual([rename.id, taxi.id]);
    expect(result.applied[0]).toEqual({
      ruleId: rename.id,
      ruleName: rename.name,
      changes: { description: { from: 'Uber trip', to: 'Taxi' } },
    });
    // the other order: the taxi rule sees the original description
    const reversed = evaluateRules(set(taxi, rename, stillUber), draft(), ctx, 'CREATE');
    expect(reversed.applied.map((a) => a.ruleId)).toEqual([rename.id]);
  });

  it('a matching rule with stopProcessing ends the run; a rule that does not match never stops it', () => {
    const notMatching = rule({ conditions: [{ field: 'amountCents', operator: 'gt', value: 999_999 }], stopProcessing: true });
    const stopper = rule({ stopProcessing: true, actions: [{ type: 'SET_CATEGORY', categoryId: '00000000-0000-4000-8000-000000000001' }] });
    const after = rule({ actions: [{ type: 'SET_EXCLUDE_FROM_SYNC', value: true }] });
    const result = evaluateRules(set(notMatching, stopper, after), draft(), ctx, 'CREATE');
    expect(result.applied.map((a) => a.ruleId)).toEqual([stopper.id]);
    expect(result.draft.categoryId).toBe('00000000-0000-4000-8000-000000000001');
    expect(result.draft.excludeFromSync).toBe(false);
  });

  it('runs only the rules of the trigger', () => {
    const ingestOnly = rule({ triggers: ['INGEST'] });
    expect(evaluateRules(set(ingestOnly), draft(), ctx, 'CREATE').applied).toEqual([]);
    expect(evaluateRules(set(ingestOnly), draft(), ctx, 'INGEST').applied).toHaveLength(1);
  });

  it('counterparty: a SET_PARTY of an earlier rule is the counterparty later rules see; BANK reads the bank line', () => {
    const toLyft = rule({ actions: [{ type: 'SET_PARTY', partyId: 30 }] });
    const lyft = rule({
      conditions: [{ field: 'counterparty', operator: 'startsWith', value: 'LYFT' }],
      actions: [{ type: 'ADD_TAGS', tagIds: [99] }],
    });
    const result = evaluateRules(set(toLyft, lyft), draft(), ctx, 'CREATE');
    expect(result.draft.toPartyId).toBe(30);
    expect(result.draft.fromPartyId).toBe(10);
    expect(result.draft.tagIds).toEqual([99]);
    const bank = evaluateRules(set(lyft), draft(), { partyNames: names, bankCounterparty: 'LYFT *RIDE 123' }, 'BANK');
    expect(bank.applied).toHaveLength(1);
    expect(evaluateRules(set(lyft), draft(), ctx, 'BANK').applied).toHaveLength(0); // Uber BV
  });

  it('collects REQUEST_DOCUMENT actions, and records a matching rule even when it changes nothing', () => {
    const ask = rule({ actions: [{ type: 'REQUEST_DOCUMENT', documentName: 'Receipt', documentType: 'BASIS' }] });
    const noop = rule({ actions: [{ type: 'SET_EXCLUDE_FROM_SYNC', value: false }] });
    const result = evaluateRules(set(ask, noop), draft(), ctx, 'CREATE');
    expect(result.documentRequests).toEqual([{ documentName: 'Receipt', documentType: 'BASIS' }]);
    expect(result.applied.map((a) => a.changes)).toEqual([
      { documentsRequested: [{ documentName: 'Receipt', documentType: 'BASIS' }] },
      {},
    ]);
  });
});

describe('patterns (RE2)', () => {
  it('a catastrophic pattern runs in linear time over a 50,000-character text', () => {
    const evil = rule({ conditions: [{ field: 'description', operator: 'matches', value: '(a+)+$' }] });
    const compiled = set(evil);
    const text = `${'a'.repeat(50_000)}b`;
    // a backtracking engine would not finish this in the lifetime of the test run
    expect(evaluateRules(compiled, draft({ description: text }), ctx, 'CREATE').applied).toEqual([]);
    expect(evaluateRules(compiled, draft({ description: 'a'.repeat(50_000) }), ctx, 'CREATE').applied).toHaveLength(1);
  });

  it('backreferences and lookaround are refused by RE2 itself', () => {
    for (const value of ['(a)\\1', 'a(?=b)', 'a(?!b)', '(?<=a)b']) {
      expect(() => compileRule(rule({ conditions: [{ field: 'description', operator: 'matches', value }] }))).toThrow(RulePatternError);
    }
  });

  it('is case-insensitive and reads non-ASCII text', () => {
    const cafe = rule({ conditions: [{ field: 'description', operator: 'matches', value: '^caf\u00e9 DE' }] });
    expect(evaluateRules(set(cafe), draft({ description: 'CAF\u00c9 de Flore' }), ctx, 'CREATE').applied).toHaveLength(1);
  });
});
