import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { createCategory, syncWorld, type SyncWorld } from '../../support/factories/index.js';
import { expectOkBody, startEmulators, stopEmulators, type Emulators } from './helpers.js';

/** pull-chart-of-accounts and pull-parties (CONTRACT §9): upserts by externalId → {imported, updated}; parties get mappings. */
let api: Api;
let e: Emulators;

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
});
afterAll(() => stopEmulators(e));

const importAccounts = (w: SyncWorld) =>
  api.post('/accounting/sync/pull-chart-of-accounts', { connectionId: w.connection.id }, { token: w.token });
const importParties = (w: SyncWorld) => api.post('/accounting/sync/pull-parties', { connectionId: w.connection.id }, { token: w.token });
const categories = async (w: SyncWorld) =>
  expectOkBody(await api.get('/accounting/categories', { token: w.token, query: { workspaceId: w.workspaceId, includeInactive: 'true' } }));
const mappings = async (w: SyncWorld) =>
  expectOkBody(await api.get('/accounting/mappings/parties', { token: w.token, query: { connectionId: w.connection.id } }));
const parties = async (w: SyncWorld) => expectOkBody(await api.get('/parties', { token: w.token, query: { workspaceId: w.workspaceId } }));

describe('QuickBooks: Account, Vendor and Customer queries', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await syncWorld(api, 'QUICKBOOKS', e);
  });

  it('accounts become categories by externalId (code = AcctNum or QB-<Id>, type from Classification); a second import changes nothing', async () => {
    await createCategory(w, { code: '6100', name: 'Local office', accountType: 'EXPENSE' });
    expect(expectOkBody(await importAccounts(w))).toEqual({ imported: 5, updated: 0 });
    const list = await categories(w);
    const byExternal = Object.fromEntries(list.filter((c: any) => c.externalId).map((c: any) => [c.externalId, c]));
    expect(byExternal['35']).toMatchObject({ code: '1000', name: 'Checking', accountType: 'ASSET', isActive: true });
    expect(byExternal['4']).toMatchObject({ code: '4000', accountType: 'REVENUE' });
    expect(byExternal['7']).toMatchObject({ code: '6100-7', name: 'Office Expenses', accountType: 'EXPENSE' }); // 6100 was taken
    expect(byExternal['8']).toMatchObject({ code: 'QB-8', name: 'Travel' });
    expect(byExternal['33']).toMatchObject({ accountType: 'LIABILITY' });
    expect(expectOkBody(await importAccounts(w))).toEqual({ imported: 0, updated: 0 });
    e.qb.accounts.find((a) => a.Id === '8')!.Name = 'Travel & meals';
    expect(expectOkBody(await importAccounts(w))).toEqual({ imported: 0, updated: 1 });
    expect((await categories(w)).find((c: any) => c.externalId === '8').name).toBe('Travel & meals');
  });

  it('vendors and customers become parties with party mappings; an existing party of the same name is linked', async () => {
    const before = await parties(w);
    expect(expectOkBody(await importParties(w))).toEqual({ imported: 3, updated: 0 });
    const maps = await mappings(w);
    expect(maps.map((m: any) => [m.externalType, m.externalId, m.externalName]).sort()).toEqual([
      ['Customer', '58', 'Acme Ltd'],
      ['Vendor', '56', 'Globex'],
      ['Vendor', '57', 'Hooli'],
    ]);
    const after = await parties(w);
    expect(after.length - before.length).toBe(1); // Hooli is new; Acme Ltd and Globex existed
    const acme = before.find((p: any) => p.name === 'Acme Ltd');
    expect(maps.find((m: any) => m.externalId === '58').partyId).toBe(acme.id);
    expect(after.find((p: any) => p.name === 'Hooli')).toMatchObject({ partyType: 'ORGANIZATION' });
    expect(expectOkBody(await importParties(w))).toEqual({ imported: 0, updated: 0 });
    e.qb.vendors.find((v) => v.Id === '57')!.DisplayName = 'Hooli Inc';
    expect(expectOkBody(await importParties(w))).toEqual({ imported: 0, updated: 1 });
    expect((await parties(w)).find((p: any) => p.id === maps.find((m: any) => m.externalId === '57').partyId).name).toBe('Hooli Inc');
  });
});

describe('generic provider: GET /accounts and GET /parties', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await syncWorld(api, 'GENERIC', e);
  });

  it('imports accounts and parties, upserting by externalId', async () => {
    expect(expectOkBody(await importAccounts(w))).toEqual({ imported: 2, updated: 0 });
    expect((await categories(w)).find((c: any) => c.externalId === 'acc-100')).toMatchObject({ code: '6100', accountType: 'EXPENSE' });
    expect(expectOkBody(await importParties(w))).toEqual({ imported: 2, updated: 0 });
    expect((await parties(w)).find((p: any) => p.name === 'Northwind')).toBeTruthy();
    expect((await mappings(w)).find((m: any) => m.externalId === 'p-1')).toMatchObject({ externalType: 'VENDOR', externalName: 'Globex' });
    e.generic.parties[1].name = 'Northwind Traders';
    expect(expectOkBody(await importParties(w))).toEqual({ imported: 0, updated: 1 });
  });

  it('a provider failure is a 409 naming it; an inactive connection is a 409', async () => {
    e.generic.inject({ status: 500, times: 3 });
    const failed = await importAccounts(w);
    expectErrorBody(failed, 409, 'CONFLICT');
    expect(failed.body.message).toMatch(/Listing external accounts failed: .*500/);
    const other = await syncWorld(api, 'GENERIC', e);
    await api.del(`/accounting/connections/${other.connection.id}`, { token: other.token });
    expectErrorBody(await importParties(other), 409, 'CONFLICT');
    expectErrorBody(
      await api.post('/accounting/sync/pull', { connectionId: other.connection.id }, { token: other.token }),
      409,
      'CONFLICT',
    );
  });
});

describe('MANUAL provider', () => {
  it('pulls and imports return zeros', async () => {
    const w = await syncWorld(api, 'MANUAL', e);
    expect(expectOkBody(await importAccounts(w))).toEqual({ imported: 0, updated: 0 });
    expect(expectOkBody(await importParties(w))).toEqual({ imported: 0, updated: 0 });
    expect(expectOkBody(await api.post('/accounting/sync/pull', { connectionId: w.connection.id }, { token: w.token }))).toEqual({
      pulled: 0,
      updated: 0,
      conflicts: 0,
    });
  });
});
