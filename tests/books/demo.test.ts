import { beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../server/seed/demo.js';
import { buildUser, login } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/** The demo workspace shows its books (CONTRACT §23): roles on the demo chart, a manual journal, statements that agree. */
let api: Api;
let token: string;
let workspaceId: number;
const TODAY = '2026-06-15';

beforeAll(async () => {
  api = await startServer();
  const admin = await buildUser({ email: 'demo-books@example.test' });
  const seeded = await seedDemo(admin.email, new Date(`${TODAY}T12:00:00Z`));
  workspaceId = seeded.workspaceId!;
  token = await login(api, admin);
}, 180_000);

describe('demo seed: the books', () => {
  it('names readable accounts of the demo chart for every role (no account created for a role)', async () => {
    const roles = (await api.get('/ledger/roles', { token, query: { workspaceId } })).body;
    expect(Object.fromEntries(Object.entries(roles).map(([role, c]: [string, any]) => [role, `${c.code} ${c.name}`]))).toEqual({
      BANK: '1100 Bank accounts',
      RECEIVABLE: '1200 Accounts receivable',
      PAYABLE: '2100 Accounts payable',
      REVENUE: '4000 Revenue',
      EXPENSE: '6000 Operating expenses',
      OPENING_BALANCE: '3200 Opening balance equity',
      RETAINED_EARNINGS: '3100 Retained earnings',
    });
    const codes = (await api.get('/accounting/categories', { token, query: { workspaceId } })).body.map((c: any) => c.code);
    expect(codes.filter((c: string) => c.includes('-'))).toEqual([]);
  });

  it('has a manual journal and a trial balance whose totals agree, with the balance sheet balanced', async () => {
    const manual = (await api.get('/ledger/journal', { token, query: { workspaceId, kind: 'MANUAL' } })).body.items;
    expect(manual).toHaveLength(1);
    expect(manual[0]).toMatchObject({ date: TODAY, description: 'Owner capital paid in' });
    expect(manual[0].lines.map((l: any) => [l.code, l.debitCents, l.creditCents])).toEqual([
      ['1100', 2_500_000, 0],
      ['3300', 0, 2_500_000],
    ]);
    const tb = (await api.get('/ledger/trial-balance', { token, query: { workspaceId, asOf: TODAY } })).body;
    expect(tb.totals.debitCents).toBe(tb.totals.creditCents);
    expect(tb.accounts.map((a: any) => a.code)).toEqual(expect.arrayContaining(['1100', '1200', '2100', '3300', '4000', '6000']));
    const bs = (await api.get('/reports/balance-sheet', { token, query: { workspaceId, asOf: TODAY } })).body;
    expect(bs.totalAssetsCents).toBe(bs.totalLiabilitiesAndEquityCents);
    expect(bs.equity.find((e: any) => e.code === '3300')).toMatchObject({ amountCents: 2_500_000 });
    const verify = (await api.get('/ledger/verify', { token, query: { workspaceId } })).body;
    expect(verify).toMatchObject({ ok: true, mismatches: [] });
  });
});
