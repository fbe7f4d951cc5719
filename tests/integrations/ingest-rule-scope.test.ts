import { beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Api } from '../support/http.js';
import { createIntegration, integrationWorld, type IntegrationWorld } from '../support/factories/index.js';
import { ingest, item } from './helpers.js';

/** CONTRACT §11/§16: a rule (trigger INGEST) never moves a scoped integration's item outside its projects. */
let api: Api;
let w: IntegrationWorld;
let p1: number;
let p2: number;
let supplierRuleId: string;

beforeAll(async () => {
  api = await startServer();
  w = await integrationWorld(api, { scope: (ids) => [ids[0]] });
  [p1, p2] = w.projectIds;
  const rule = (name: string, conditions: unknown[], projectId: number) =>
    api.post(
      '/rules',
      { workspaceId: w.workspaceId, name, triggers: ['INGEST'], conditions, actions: [{ type: 'SET_PROJECT', projectId }] },
      { token: w.token },
    );
  expect((await rule('to project 2', [{ field: 'description', operator: 'contains', value: 'elsewhere' }], p2)).status).toBe(200);
  const supplier = await rule('supplier to 2', [{ field: 'counterparty', operator: 'equals', value: 'Brand New Supplier' }], p2);
  expect(supplier.status).toBe(200);
  supplierRuleId = supplier.body.id;
});

const entriesIn = async (projectId: number): Promise<any[]> => {
  const res = await api.get(`/entries?workspaceId=${w.workspaceId}&projectId=${projectId}&limit=100`, { token: w.token });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
};

describe('INGEST rules and the integration scope (CONTRACT §11)', () => {
  it('an item a SET_PROJECT rule would move outside the scope is an ERROR; the others are created', async () => {
    const res = await ingest(api, w.apiKey, {
      entries: [item(p1, 'moved', { description: 'book it elsewhere' }), item(p1, 'stays', { description: 'plain' })],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ created: 1, failed: 1 });
    expect(res.body.results[0]).toMatchObject({ externalId: 'moved', status: 'ERROR' });
    expect(res.body.results[0].error).toContain('to project 2');
    expect(res.body.results[1]).toMatchObject({ externalId: 'stays', status: 'CREATED' });
    expect(await entriesIn(p2)).toEqual([]);
    expect((await entriesIn(p1)).map((e) => e.description)).toEqual(['plain']);
  });

  it('a counterparty named for the first time counts, and the failed item creates no party', async () => {
    const res = await ingest(api, w.apiKey, {
      entries: [item(p1, 'new-supplier', { entryType: 'EXPENSE', toParty: { name: 'Brand New Supplier' } })],
    });
    expect(res.body.results[0]).toMatchObject({ status: 'ERROR' });
    expect(await entriesIn(p2)).toEqual([]);
    const parties = await api.get(`/parties?workspaceId=${w.workspaceId}`, { token: w.token });
    expect(parties.body.map((p: { name: string }) => p.name)).not.toContain('Brand New Supplier');
    // the ERROR recorded nothing: once the rule is gone the same item is CREATED (not a DUPLICATE)
    expect((await api.del(`/rules/${supplierRuleId}`, { token: w.token })).status).toBe(200);
    const again = await ingest(api, w.apiKey, {
      entries: [item(p1, 'new-supplier', { entryType: 'EXPENSE', toParty: { name: 'Brand New Supplier' } })],
    });
    expect(again.body.results[0]).toMatchObject({ status: 'CREATED' });
  });

  it('an integration for every project may be moved by the rule', async () => {
    const open = await createIntegration(api, w.token, { workspaceId: w.workspaceId, name: 'Unscoped' });
    const res = await ingest(api, open.body.apiKey, { entries: [item(p1, 'open-moved', { description: 'elsewhere' })] });
    expect(res.body.results[0]).toMatchObject({ status: 'CREATED' });
    expect((await entriesIn(p2)).map((e) => e.id)).toEqual([res.body.results[0].entryId]);
  });
});
