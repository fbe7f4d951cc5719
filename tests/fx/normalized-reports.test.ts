import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePoppler, run } from '../reports/poppler.js';
import { createEntry, makeTag, fxWorld, putRate, type FxWorld } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { valuationOf } from './fx-world.js';

/**
 * Reports with normalize=true (CONTRACT §17) on a USD workspace, its entries created through the API
 * after the rates (so each is valued when created). Rates: JPY 0.0067 (03-01),
 * EUR 1.0812 (03-10) and 1.09 (04-01); none for GBP and CHF.
 *
 *   #  type     amount       date        project  tags       base cents
 *   1  INCOME   10000 USD    2026-03-01  P1       a          10000 (rate 1)
 *   2  EXPENSE  1000 JPY     2026-03-02  P1       a, b       670   (1000 yen × 0.0067 = 6.70 USD)
 *   3  INCOME   5000 EUR     2026-03-15  P2       a, b       5406
 *   4  EXPENSE  2001 EUR     2026-04-01  P2       b          2181  (2181.09)
 *   5  EXPENSE  1234 GBP     2026-04-02  P1       –          none
 *   6  INCOME   999 CHF      2026-04-03  P2       a          none
 *   7  EXPENSE  777 EUR      2026-04-03  VOIDED   –          (not counted)
 */
let api: Api;
let w: FxWorld;
let P2: number;
let ids: number[];
let tagA: number;
let tagB: number;

const report = async (path: string, query: Record<string, string | number> = {}) => {
  const res = await api.get(`/reports/${path}`, { token: w.token, query: { workspaceId: w.workspaceId, normalize: 'true', ...query } });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

beforeAll(async () => {
  api = await startServer();
  w = await fxWorld(api, 'USD');
  const project = await api.post('/projects', { workspaceId: w.workspaceId, name: 'Second', code: 'P2' }, { token: w.token });
  P2 = project.body.id;
  tagA = await makeTag(api, w.token, w.workspaceId, 'a');
  tagB = await makeTag(api, w.token, w.workspaceId, 'b');
  await putRate(w, 'JPY', '2026-03-01', '0.0067');
  await putRate(w, 'EUR', '2026-03-10', '1.0812');
  await putRate(w, 'EUR', '2026-04-01', '1.09');
  const [a, b] = [w.parties[0], w.parties[1]];
  const specs = [
    {
      entryType: 'INCOME',
      amountCents: 10_000,
      baseCurrency: 'USD',
      entryDate: '2026-03-01',
      tagIds: [tagA],
      fromPartyId: a,
      toPartyId: b,
    },
    {
      entryType: 'EXPENSE',
      amountCents: 1000,
      baseCurrency: 'JPY',
      entryDate: '2026-03-02',
      tagIds: [tagA, tagB],
      fromPartyId: b,
      toPartyId: a,
    },
    {
      entryType: 'INCOME',
      amountCents: 5000,
      baseCurrency: 'EUR',
      entryDate: '2026-03-15',
      projectId: P2,
      tagIds: [tagA, tagB],
      fromPartyId: a,
      toPartyId: b,
    },
    {
      entryType: 'EXPENSE',
      amountCents: 2001,
      baseCurrency: 'EUR',
      entryDate: '2026-04-01',
      projectId: P2,
      tagIds: [tagB],
      fromPartyId: b,
      toPartyId: a,
    },
    { entryType: 'EXPENSE', amountCents: 1234, baseCurrency: 'GBP', entryDate: '2026-04-02', fromPartyId: b, toPartyId: a },
    {
      entryType: 'INCOME',
      amountCents: 999,
      baseCurrency: 'CHF',
      entryDate: '2026-04-03',
      projectId: P2,
      tagIds: [tagA],
      fromPartyId: a,
      toPartyId: b,
    },
    { entryType: 'EXPENSE', amountCents: 777, baseCurrency: 'EUR', entryDate: '2026-04-03', fromPartyId: b, toPartyId: a },
  ];
  ids = [];
  for (const spec of specs) ids.push((await createEntry(w, spec)).id);
  expect((await api.post(`/entries/${ids[6]}/void`, { reason: 'test' }, { token: w.token })).status).toBe(200);
});

describe('the valuations the reports sum', () => {
  it('are those of CONTRACT §17 (checked once here, so the figures below are by hand)', async () => {
    const bases = await Promise.all(ids.map(async (id) => (await valuationOf(id)).amountBaseCents));
    expect(bases).toEqual([10_000, 670, 5406, 2181, null, null, 847]);
  });
});

describe('normalize=true', () => {
  it('summary: base-currency totals of converted entries; unconverted per currency, signed', async () => {
    expect(await report('summary')).toEqual({
      totalIncomeCents: 15_406,
      totalExpenseCents: 2851,
      netCents: 12_555,
      entryCount: 4,
      avgTransactionCents: 4564, // 18257 / 4 = 4564.25
      currency: 'USD',
      currencies: ['CHF', 'EUR', 'GBP', 'JPY', 'USD'],
      isCurrencyMixed: false,
      currencyBreakdown: [
        { currency: 'CHF', incomeCents: 999, expenseCents: 0, netCents: 999, entryCount: 1 },
        { currency: 'EUR', incomeCents: 5000, expenseCents: 2001, netCents: 2999, entryCount: 2 },
        { currency: 'GBP', incomeCents: 0, expenseCents: 1234, netCents: -1234, entryCount: 1 },
        { currency: 'JPY', incomeCents: 0, expenseCents: 1000, netCents: -1000, entryCount: 1 },
        { currency: 'USD', incomeCents: 10_000, expenseCents: 0, netCents: 10_000, entryCount: 1 },
      ],
      unconverted: { entryCount: 2, amountCentsByCurrency: { CHF: 999, GBP: -1234 } },
    });
  });

  it('summary totals equal the sum of the counted entries’ stored base amounts', async () => {
    const counted = ids.slice(0, 6);
    const vals = await Promise.all(counted.map(valuationOf));
    const types = ['INCOME', 'EXPENSE', 'INCOME', 'EXPENSE', 'EXPENSE', 'INCOME'];
    const sum = (type: string) =>
      vals.reduce((s, v, i) => s + (types[i] === type && v.amountBaseCents !== null ? v.amountBaseCents : 0), 0);
    const summary = await report('summary');
    expect([summary.totalIncomeCents, summary.totalExpenseCents]).toEqual([sum('INCOME'), sum('EXPENSE')]);
  });

  it('summary with filters: a currency without rates gives zeros in the base currency and all of it unconverted', async () => {
    expect(await report('summary', { currency: 'GBP' })).toMatchObject({
      totalIncomeCents: 0,
      totalExpenseCents: 0,
      entryCount: 0,
      avgTransactionCents: 0,
      currency: 'USD',
      isCurrencyMixed: false,
      unconverted: { entryCount: 1, amountCentsByCurrency: { GBP: -1234 } },
    });
    expect(await report('summary', { projectId: P2, from: '2026-04-01' })).toMatchObject({
      totalIncomeCents: 0,
      totalExpenseCents: 2181,
      entryCount: 1,
      unconverted: { entryCount: 1, amountCentsByCurrency: { CHF: 999 } },
    });
  });

  it('without normalize the report is unchanged (mixed currencies, no unconverted)', async () => {
    const res = await api.get('/reports/summary', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(res.body).toMatchObject({
      totalIncomeCents: 15_999,
      totalExpenseCents: 4235,
      entryCount: 6,
      currency: 'MIXED',
      isCurrencyMixed: true,
    });
    expect(res.body).not.toHaveProperty('unconverted');
    const off = await api.get('/reports/summary', { token: w.token, query: { workspaceId: w.workspaceId, normalize: 'false' } });
    expect(off.body).toEqual(res.body);
  });

  it('timeline: base amounts per month, converted entries counted', async () => {
    expect(await report('timeline', { groupBy: 'month', from: '2026-03-01', to: '2026-04-30' })).toEqual([
      { period: '2026-03', incomeCents: 15_406, expenseCents: 670, netCents: 14_736, entryCount: 3 },
      { period: '2026-04', incomeCents: 0, expenseCents: 2181, netCents: -2181, entryCount: 1 },
    ]);
  });

  it('by-project, by-party and flows sum base amounts', async () => {
    expect(await report('by-project')).toEqual([
      { projectId: w.projectId, projectName: 'Project 1', totalIncomeCents: 10_000, totalExpenseCents: 670, netCents: 9330, entryCount: 2 },
      { projectId: P2, projectName: 'Second', totalIncomeCents: 5406, totalExpenseCents: 2181, netCents: 3225, entryCount: 2 },
    ]);
    const parties = await report('by-party');
    expect(parties.map((p: any) => [p.partyId, p.totalIncomeCents, p.totalExpenseCents, p.entryCount])).toEqual([
      [w.parties[0], 15_406, 2851, 4], // income from a, expenses to a
    ]);
    const flows = await report('flows');
    expect(flows.map((f: any) => [f.fromPartyId, f.toPartyId, f.totalCents, f.entryCount])).toEqual([
      [w.parties[0], w.parties[1], 15_406, 2],
      [w.parties[1], w.parties[0], 2851, 2],
    ]);
  });

  it('by-tag allocates base amounts to the cent (5406 over a and b = 2703 each; 670 = 335 + 335)', async () => {
    expect(await report('by-tag')).toEqual([
      { tagId: tagA, tagName: 'a', totalCents: 13_038, incomeCents: 12_703, expenseCents: 335, entryCount: 3 },
      { tagId: tagB, tagName: 'b', totalCents: 5219, incomeCents: 2703, expenseCents: 2516, entryCount: 3 },
    ]);
  });

  it('calendar: signed base amounts per day with converted entries', async () => {
    expect(await report('calendar', { year: 2026 })).toEqual([
      { date: '2026-03-01', totalCents: 10_000, entryCount: 1 },
      { date: '2026-03-02', totalCents: -670, entryCount: 1 },
      { date: '2026-03-15', totalCents: 5406, entryCount: 1 },
      { date: '2026-04-01', totalCents: -2181, entryCount: 1 },
    ]);
  });

  it('distribution: statistics of base amounts, with unconverted', async () => {
    const d = await report('distribution');
    expect(d.INCOME).toEqual({ count: 2, min: 5406, max: 10_000, mean: 7703, median: 7703, q1: 6555, q3: 8852, values: [5406, 10_000] });
    expect(d.EXPENSE).toMatchObject({ count: 2, min: 670, max: 2181, values: [670, 2181] });
    expect(d.unconverted).toEqual({ entryCount: 2, amountCentsByCurrency: { CHF: 999, GBP: -1234 } });
  });

  it('refuses a normalize value other than true/false (400)', async () => {
    const res = await api.get('/reports/summary', { token: w.token, query: { workspaceId: w.workspaceId, normalize: 'yes' } });
    expect(res.status).toBe(400);
  });
});

describe('the PDF report (CONTRACT §17: it leads with normalised totals when rates exist)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fx-pdf-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const pdfText = async (query: Record<string, string>) => {
    const url = new URL('/reports/export/pdf', api.baseUrl);
    for (const [k, v] of Object.entries({ workspaceId: String(w.workspaceId), ...query })) url.searchParams.set(k, v);
    const res = await fetch(url, { headers: { Authorization: `Bearer ${w.token}` } });
    expect(res.status).toBe(200);
    const file = path.join(dir, `${Object.values(query).join('-') || 'plain'}.pdf`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    return run('pdftotext', ['-layout', file, '-']).replace(/[ \t]+/g, ' ');
  };

  it('shows base-currency totals first, what has no rate, and keeps the currency breakdown', async () => {
    expect(ensurePoppler()).toBe(true);
    const text = await pdfText({});
    expect(text).toContain('Summary in USD');
    expect(text).toContain('154.06'); // income 15,406 cents in USD
    expect(text).toContain('2 entries without a rate are left out (net CHF 9.99; GBP -12.34)');
    expect(text).toContain('Currency breakdown');
    expect(text).toContain('JPY');
    const plain = await pdfText({ normalize: 'false' });
    expect(plain).not.toContain('Summary in USD');
    expect(plain).toContain('not FX-normalised');
  });
});
