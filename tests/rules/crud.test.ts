import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { actor, createCategory, condition, createRule, postRule, ruleBody, ruleWorld, type RuleWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';

const RULE_KEYS = [
  'actions',
  'conditions',
  'createdAt',
  'id',
  'isActive',
  'match',
  'name',
  'priority',
  'stopProcessing',
  'triggers',
  'updatedAt',
  'workspaceId',
];

let api: Api;
let w: RuleWorld;
let other: RuleWorld;

beforeAll(async () => {
  api = await startServer();
  w = await ruleWorld(api);
  other = await ruleWorld(api);
});

const bad = async (overrides: Record<string, unknown>) => expectErrorBody(await postRule(w, overrides), 400, 'BAD_REQUEST');

describe('rules: create, read, update, delete', () => {
  it('creates a rule with exactly the contract fields and the documented defaults', async () => {
    const rule = await createRule(w, { name: 'Taxis' });
    expect(Object.keys(rule).sort()).toEqual(RULE_KEYS);
    expect(rule).toMatchObject({
      workspaceId: w.workspaceId,
      name: 'Taxis',
      isActive: true,
      match: 'ALL',
      stopProcessing: false,
      triggers: ['CREATE', 'INGEST', 'BANK'],
      conditions: [{ field: 'description', operator: 'contains', value: 'taxi' }],
      actions: [{ type: 'SET_EXCLUDE_FROM_SYNC', value: true }],
    });
    const got = await api.get(`/rules/${rule.id}`, { token: w.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(rule);
  });

  it('lists by priority ascending, then createdAt', async () => {
    const ws = await ruleWorld(api);
    const late = await createRule(ws, { name: 'p5-first', priority: 5 });
    const early = await createRule(ws, { name: 'p1', priority: 1 });
    const sameLater = await createRule(ws, { name: 'p5-second', priority: 5 });
    const res = await api.get('/rules', { token: ws.token, query: { workspaceId: ws.workspaceId } });
    expect(res.status).toBe(200);
    expect(res.body.map((r: { id: string }) => r.id)).toEqual([early.id, late.id, sameLater.id]);
  });

  it('updates only the fields sent, re-validating the result; deletes', async () => {
    const rule = await createRule(w, { name: 'Before', priority: 3 });
    const res = await api.patch(
      `/rules/${rule.id}`,
      { name: 'After', isActive: false, match: 'ANY', stopProcessing: true, triggers: ['INGEST'] },
      { token: w.token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'After',
      priority: 3,
      isActive: false,
      match: 'ANY',
      stopProcessing: true,
      triggers: ['INGEST'],
    });
    expect(res.body.conditions).toEqual(rule.conditions);
    expectErrorBody(
      await api.patch(`/rules/${rule.id}`, { conditions: [condition('description', 'matches', '(a)\\1')] }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(await api.patch(`/rules/${rule.id}`, { workspaceId: other.workspaceId }, { token: w.token }), 400, 'BAD_REQUEST');
    const del = await api.del(`/rules/${rule.id}`, { token: w.token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true });
    expectErrorBody(await api.get(`/rules/${rule.id}`, { token: w.token }), 404, 'NOT_FOUND');
  });
});

describe('rules: validation (400)', () => {
  it('every condition field with its operators and values is accepted', async () => {
    const conditions = [
      condition('description', 'contains', 'a'),
      condition('reference', 'equals', 'INV-1'),
      condition('counterparty', 'startsWith', 'Acme'),
      condition('counterparty', 'endsWith', 'Ltd'),
      condition('description', 'matches', '(a+)+$'),
      condition('amountCents', 'eq', 1),
      condition('amountCents', 'gt', 1),
      condition('amountCents', 'gte', 1),
      condition('amountCents', 'lt', 1),
      condition('amountCents', 'lte', 1),
      condition('amountCents', 'between', [1, 10]),
      condition('entryType', 'eq', 'INCOME'),
      condition('baseCurrency', 'eq', 'EUR'),
      condition('baseCurrency', 'in', ['EUR', 'USD']),
      condition('projectId', 'eq', w.projectIds[0]),
      condition('projectId', 'in', w.projectIds),
      condition('partyId', 'eq', w.parties[0]),
      condition('partyId', 'in', [w.parties[0], w.parties[1]]),
    ];
    const rule = await createRule(w, { match: 'ANY', conditions });
    expect(rule.conditions).toEqual(conditions);
  });

  it('every action is accepted', async () => {
    const actions = [
      { type: 'SET_CATEGORY', categoryId: w.categories[0] },
      { type: 'ADD_TAGS', tagIds: w.tags },
      { type: 'SET_PROJECT', projectId: w.projectIds[1] },
      { type: 'SET_PARTY', partyId: w.parties[2] },
      { type: 'SET_EXCLUDE_FROM_SYNC', value: false },
      { type: 'SET_DESCRIPTION', description: 'Cleaned' },
      { type: 'REQUEST_DOCUMENT', documentName: 'Receipt', documentType: 'BASIS' },
    ];
    expect((await createRule(w, { actions })).actions).toEqual(actions);
  });

  it('a bad field, operator or value is a 400', async () => {
    await bad({ conditions: [condition('memo', 'contains', 'x')] });
    await bad({ conditions: [condition('description', 'eq', 'x')] });
    await bad({ conditions: [condition('description', 'contains', '')] });
    await bad({ conditions: [condition('description', 'contains', 5)] });
    await bad({ conditions: [condition('amountCents', 'contains', 5)] });
    await bad({ conditions: [condition('amountCents', 'gt', -1)] }); // 0 is "any amount" (CONTRACT §16); below it nothing is
    await bad({ conditions: [condition('amountCents', 'between', [-5, 5])] });
    await bad({ conditions: [condition('amountCents', 'lte', 1_000_000_000_000_001)] });
    await bad({ conditions: [condition('amountCents', 'gt', 1.5)] });
    await bad({ conditions: [condition('amountCents', 'between', [10, 1])] });
    await bad({ conditions: [condition('amountCents', 'between', 5)] });
    await bad({ conditions: [condition('amountCents', 'eq', [1, 2])] });
    await bad({ conditions: [condition('entryType', 'eq', 'TRANSFER')] });
    await bad({ conditions: [condition('entryType', 'in', ['INCOME'])] });
    await bad({ conditions: [condition('baseCurrency', 'eq', 'usd')] });
    await bad({ conditions: [condition('baseCurrency', 'in', [])] });
    await bad({ conditions: [condition('projectId', 'gt', 1)] });
    await bad({ conditions: [{ ...condition('description', 'contains', 'x'), extra: 1 }] });
    await bad({ conditions: [] });
    await bad({ actions: [] });
    await bad({ actions: [{ type: 'DELETE_ENTRY' }] });
    await bad({ actions: [{ type: 'SET_CATEGORY', categoryId: 'not-a-uuid' }] });
    await bad({ actions: [{ type: 'REQUEST_DOCUMENT', documentName: 'x', documentType: 'INVOICE' }] });
    await bad({ match: 'SOME' });
    await bad({ triggers: ['CREATE', 'CREATE'] });
    await bad({ triggers: ['IMPORT'] });
    await bad({ triggers: [] });
    await bad({ surprise: true });
  });

  it('patterns: what RE2 accepts is accepted; backreferences, lookaround and bad syntax are a 400; at most 200 characters', async () => {
    for (const pattern of ['(a+)+$', '^uber\\s+\\d+', '[[:alpha:]]+', '(?i)caf\u00e9']) {
      await createRule(w, { conditions: [condition('description', 'matches', pattern)] });
    }
    for (const pattern of ['(a)\\1', '(?<n>a)\\k<n>', 'foo(?=bar)', 'foo(?!bar)', '(?<=a)b', '(?<!a)b', '(unclosed', '*']) {
      const res = await postRule(w, { conditions: [condition('description', 'matches', pattern)] });
      expectErrorBody(res, 400, 'BAD_REQUEST');
    }
    await createRule(w, { conditions: [condition('description', 'matches', 'a'.repeat(200))] });
    await bad({ conditions: [condition('description', 'matches', 'a'.repeat(201))] });
  });

  it("ids in conditions and actions must be the workspace's (400), a category active", async () => {
    await bad({ actions: [{ type: 'SET_CATEGORY', categoryId: other.categories[0] }] });
    await bad({ actions: [{ type: 'SET_CATEGORY', categoryId: '00000000-0000-4000-8000-000000000000' }] });
    await bad({ actions: [{ type: 'ADD_TAGS', tagIds: [w.tags[0], other.tags[0]] }] });
    await bad({ actions: [{ type: 'SET_PROJECT', projectId: other.projectIds[0] }] });
    await bad({ actions: [{ type: 'SET_PARTY', partyId: other.parties[0] }] });
    await bad({ conditions: [condition('projectId', 'in', [w.projectIds[0], other.projectIds[0]])] });
    await bad({ conditions: [condition('partyId', 'eq', other.parties[0])] });
    const retired = await createCategory(w, { name: 'Retired' });
    expect((await api.del(`/accounting/categories/${retired.id}`, { token: w.token })).status).toBe(200);
    await bad({ actions: [{ type: 'SET_CATEGORY', categoryId: retired.id }] });
  });
});

describe('rules: limits', () => {
  it('20 conditions and 10 actions are accepted; 21 and 11 are a 400', async () => {
    const conditions = (n: number) => Array.from({ length: n }, (_, i) => condition('description', 'contains', `word${i}`));
    const actions = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'SET_DESCRIPTION', description: `d${i}` }));
    await createRule(w, { conditions: conditions(20), actions: actions(10) });
    await bad({ conditions: conditions(21) });
    await bad({ actions: actions(11) });
  });

  it('a workspace holds at most 200 rules: the 201st is a 409, also when creates race', async () => {
    const ws = await ruleWorld(api);
    // 195 rules straight in the table (the limit is what is under test, not 195 creates)
    await db().query(
      `INSERT INTO rules (workspace_id, name, conditions, actions)
       SELECT :ws, 'bulk ' || n, '[{"field":"description","operator":"contains","value":"x"}]', '[{"type":"SET_EXCLUDE_FROM_SYNC","value":true}]'
         FROM generate_series(1, 195) n`,
      { replacements: { ws: ws.workspaceId } },
    );
    const racing = await Promise.all(Array.from({ length: 12 }, (_, i) => postRule(ws, { name: `race ${i}` })));
    const statuses = racing.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    for (const res of racing.filter((r) => r.status !== 200)) expectErrorBody(res, 409, 'CONFLICT');
    const [{ count }] = await db().query<{ count: number }>('SELECT count(*)::int AS count FROM rules WHERE workspace_id = :ws', {
      replacements: { ws: ws.workspaceId },
      type: QueryTypes.SELECT,
    });
    expect(count).toBe(200);
    expectErrorBody(await postRule(ws), 409, 'CONFLICT');
    // another workspace is not limited by this one
    await createRule(other);
    // deleting one frees a place
    const [first] = (await api.get('/rules', { token: ws.token, query: { workspaceId: ws.workspaceId } })).body;
    expect((await api.del(`/rules/${first.id}`, { token: ws.token })).status).toBe(200);
    await createRule(ws);
  });
});

describe('rules: access', () => {
  it('writes, preview and apply need rule.manage (403, before any scope check); reading needs membership only', async () => {
    const rule = await createRule(w);
    const reader = await actor(api, { workspaceId: w.workspaceId, permissions: PERMISSIONS.filter((p) => p !== 'rule.manage') });
    expectErrorBody(await api.post('/rules', ruleBody(w), { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/rules/${rule.id}`, { name: 'x' }, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del(`/rules/${rule.id}`, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post(`/rules/${rule.id}/apply`, {}, { token: reader.token }), 403, 'FORBIDDEN');
    const previewBody = { workspaceId: w.workspaceId, conditions: rule.conditions, actions: rule.actions };
    expectErrorBody(await api.post('/rules/preview', previewBody, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post(`/rules/${other.categories[0]}/apply`, {}, { token: reader.token }), 403, 'FORBIDDEN');
    const readOnly = await actor(api, { workspaceId: w.workspaceId, permissions: [] });
    expect((await api.get('/rules', { token: readOnly.token, query: { workspaceId: w.workspaceId } })).status).toBe(200);
    expect((await api.get(`/rules/${rule.id}`, { token: readOnly.token })).status).toBe(200);
  });

  it('another workspace: its workspaceId is a 403, its rules are a 404', async () => {
    const rule = await createRule(w);
    const outsider = other.token;
    expectErrorBody(await api.get('/rules', { token: outsider, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post('/rules', ruleBody(w), { token: outsider }), 403, 'FORBIDDEN');
    expectErrorBody(
      await api.post(
        '/rules/preview',
        { workspaceId: w.workspaceId, conditions: rule.conditions, actions: rule.actions },
        { token: outsider },
      ),
      403,
      'FORBIDDEN',
    );
    expectErrorBody(await api.get(`/rules/${rule.id}`, { token: outsider }), 404, 'NOT_FOUND');
    expectErrorBody(await api.patch(`/rules/${rule.id}`, { name: 'mine now' }, { token: outsider }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/rules/${rule.id}`, { token: outsider }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(`/rules/${rule.id}/apply`, {}, { token: outsider }), 404, 'NOT_FOUND');
    expect((await api.get(`/rules/${rule.id}`, { token: w.token })).body.name).toBe(rule.name);
  });
});
