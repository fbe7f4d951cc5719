import { beforeAll, describe, expect, it } from 'vitest';
import { createEntry, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/**
 * CONTRACT §23 over what the entries post: the P&L of any range equals the §11 normalised summary of that
 * range (plus manual journals on P&L accounts), per project too; open items are the counted entries not yet
 * settled, aged from their entry date; a void takes an entry out of both.
 */
let api: Api;
let w: EntryWorld;
let income: any[];
let expense: any[];

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api, { projects: 2 });
  const [p1, p2] = w.projectIds;
  income = [
    await createEntry(w, { projectId: p1, entryType: 'INCOME', amountCents: 10_000, entryDate: '2026-01-10', fromPartyId: w.parties[2] }),
    await createEntry(w, { projectId: p2, entryType: 'INCOME', amountCents: 3_000, entryDate: '2026-02-05', fromPartyId: w.parties[3] }),
    await createEntry(w, { projectId: p1, entryType: 'INCOME', amountCents: 777, entryDate: '2026-03-20' }),
  ];
  expense = [
    await createEntry(w, { projectId: p1, entryType: 'EXPENSE', amountCents: 2_500, entryDate: '2026-01-20' }),
    await createEntry(w, { projectId: p2, entryType: 'EXPENSE', amountCents: 1_234, entryDate: '2026-02-28' }),
  ];
  // a change posts a reversal and a new transaction; a void takes the entry out of the books
  const edited = await api.patch(`/entries/${expense[1].id}`, { amountCents: 1_500, version: expense[1].version }, { token: w.token });
  expect(edited.status, edited.text).toBe(200);
  const voided = await api.post(`/entries/${income[2].id}/void`, { reason: 'Duplicate' }, { token: w.token });
  expect(voided.status, voided.text).toBe(200);
});

const get = async (path: string, query: Record<string, string | number | undefined>) => {
  const res = await api.get(path, { token: w.token, query: { workspaceId: w.workspaceId, ...query } });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

describe('P&L equals the §11 summary of the range', () => {
  const RANGES: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ['2026-01-01', '2026-01-31'],
    ['2026-01-15', '2026-02-28'],
    ['2026-02-01', undefined],
    ['2026-03-01', '2026-12-31'],
  ];
  it('for every range, and per project', async () => {
    for (const [from, to] of RANGES) {
      for (const projectId of [undefined, ...w.projectIds]) {
        const pnl = await get('/reports/profit-and-loss', { from, to, projectId });
        const summary = await get('/reports/summary', { from, to, projectId, normalize: 'true' });
        expect([pnl.totalRevenueCents, pnl.totalExpenseCents], `${from}..${to} project ${projectId}`).toEqual([
          summary.totalIncomeCents,
          summary.totalExpenseCents,
        ]);
        expect(pnl.netIncomeCents).toBe(summary.totalIncomeCents - summary.totalExpenseCents);
      }
    }
    expect((await get('/reports/profit-and-loss', {})).totalExpenseCents).toBe(4_000);
  });

  it('plus the manual journals on P&L accounts (but a project’s P&L only has its entries)', async () => {
    const roles = (await api.get('/ledger/roles', { token: w.token, query: { workspaceId: w.workspaceId } })).body;
    const posted = await api.post(
      '/ledger/journal',
      {
        workspaceId: w.workspaceId,
        date: '2026-01-31',
        description: 'Accrued expense',
        lines: [
          { categoryId: roles.EXPENSE.id, debitCents: 450 },
          { categoryId: roles.OPENING_BALANCE.id, creditCents: 450 },
        ],
      },
      { token: w.token },
    );
    expect(posted.status, posted.text).toBe(200);
    const jan = await get('/reports/profit-and-loss', { from: '2026-01-01', to: '2026-01-31' });
    const summary = await get('/reports/summary', { from: '2026-01-01', to: '2026-01-31', normalize: 'true' });
    expect(jan.totalExpenseCents).toBe(summary.totalExpenseCents + 450);
    const p1 = await get('/reports/profit-and-loss', { from: '2026-01-01', to: '2026-01-31', projectId: w.projectIds[0] });
    expect(p1.totalExpenseCents).toBe(2_500);
    const bs = await get('/reports/balance-sheet', { asOf: '2026-12-31' });
    expect(bs.totalAssetsCents).toBe(bs.totalLiabilitiesAndEquityCents);
    expect(bs.currentEarningsCents).toBe(13_000 - 4_000 - 450);
  });
});

describe('GET /ledger/open-items', () => {
  it('lists the unsettled receivables as of a date, aged, with buckets', async () => {
    const res = await get('/ledger/open-items', { side: 'RECEIVABLE', asOf: '2026-03-10' });
    expect(res.items).toEqual([
      { entryId: income[0].id, entryDate: '2026-01-10', partyId: w.parties[2], amountCents: 10_000, ageDays: 59 },
      { entryId: income[1].id, entryDate: '2026-02-05', partyId: w.parties[3], amountCents: 3_000, ageDays: 33 },
    ]);
    expect(res.buckets).toEqual({ current: 0, d1_30: 0, d31_60: 13_000, d61_90: 0, over90: 0 });
    const early = await get('/ledger/open-items', { side: 'RECEIVABLE', asOf: '2026-01-10' });
    expect(early.items.map((i: any) => [i.entryId, i.ageDays])).toEqual([[income[0].id, 0]]);
    expect(early.buckets.current).toBe(10_000);
    const later = await get('/ledger/open-items', { side: 'RECEIVABLE', asOf: '2026-06-30' });
    expect(later.items.map((i: any) => i.entryId)).toEqual([income[0].id, income[1].id]); // the voided one is not open
  });

  it('lists the payables with their current amount (the edit reversed the old one)', async () => {
    const res = await get('/ledger/open-items', { side: 'PAYABLE', asOf: '2026-06-30' });
    expect(res.items.map((i: any) => [i.entryId, i.amountCents, i.partyId])).toEqual([
      [expense[0].id, 2_500, w.parties[1]],
      [expense[1].id, 1_500, w.parties[1]],
    ]);
    expect(res.buckets.over90).toBe(4_000);
  });
});
