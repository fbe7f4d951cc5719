import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { call, callError, connectAgent } from '../mcp/support.js';
import { postRaw, rawAccounts } from './books-fixture.js';

/** CONTRACT §20 over §23: the books' reads are read-only tools; a key limited to projects is refused as on REST. */
let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
  const a = await rawAccounts(w.workspaceId, [
    ['1000', 'Bank', 'ASSET'],
    ['3000', 'Capital', 'EQUITY'],
  ]);
  await postRaw(w.workspaceId, [
    {
      date: '2026-01-05',
      kind: 'MANUAL',
      lines: [
        [a['1000'], 7_000, 0],
        [a['3000'], 0, 7_000],
      ],
    },
  ]);
});

const READ_TOOLS = [
  'listJournalTransactions',
  'getJournalTransaction',
  'getTrialBalance',
  'listAccountLines',
  'getOpenItems',
  'getProfitAndLoss',
  'getBalanceSheet',
];

describe('the books through MCP', () => {
  it('lists the reads as read-only tools (the streamed export is a download, not a tool) and answers as REST does', async () => {
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.export'] });
    const agent = await connectAgent(api, key.apiKey);
    const { tools } = await agent.listTools();
    for (const name of READ_TOOLS) expect(tools.find((t) => t.name === name)?.annotations?.readOnlyHint, name).toBe(true);
    expect(tools.find((t) => t.name === 'exportJournal')).toBeUndefined();
    const args = { workspaceId: w.workspaceId, asOf: '2026-01-31' };
    const viaMcp = await call(agent, 'getTrialBalance', args);
    expect(viaMcp).toEqual((await api.get('/ledger/trial-balance', { token: w.token, query: args })).body);
    expect(viaMcp.totals).toEqual({ debitCents: 7_000, creditCents: 7_000 });
    expect(await call(agent, 'getBalanceSheet', args)).toMatchObject({ totalAssetsCents: 7_000, totalLiabilitiesAndEquityCents: 7_000 });
  });

  it('refuses a key limited to projects (403), as a project member', async () => {
    const scoped = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.export'], projectIds: [w.projectId] });
    const agent = await connectAgent(api, scoped.apiKey);
    expect((await callError(agent, 'getTrialBalance', { workspaceId: w.workspaceId })).code).toBe('FORBIDDEN');
    expect((await callError(agent, 'listJournalTransactions', { workspaceId: w.workspaceId })).code).toBe('FORBIDDEN');
  });
});
