import { beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../../server/runtime.js';
import { buildOpenApiDocument } from '../../server/trpc/openapi.js';
import { startServer } from '../support/http.js';
import { buildDataset, report, type Dataset } from './dataset.js';

/** Every figure below is worked out by hand from the table in dataset.ts. */
let d: Dataset;

beforeAll(async () => {
  d = await buildDataset(await startServer());
});

const row = (period: string, incomeCents: number, expenseCents: number, entryCount: number) => ({
  period,
  incomeCents,
  expenseCents,
  netCents: incomeCents - expenseCents,
  entryCount,
});
const zero = (period: string) => row(period, 0, 0, 0);

describe('GET /reports/summary', () => {
  it('totals the counted entries of every currency, with the per-currency breakdown', async () => {
    expect(await report(d, 'summary')).toEqual({
      totalIncomeCents: 5106,
      totalExpenseCents: 1584,
      netCents: 3522,
      entryCount: 7,
      avgTransactionCents: 956, // 6690 / 7 = 955.71
      currency: 'MIXED',
      currencies: ['EUR', 'JPY', 'USD'],
      isCurrencyMixed: true,
      currencyBreakdown: [
        { currency: 'EUR', incomeCents: 5, expenseCents: 1000, netCents: -995, entryCount: 2 },
        { currency: 'JPY', incomeCents: 0, expenseCents: 333, netCents: -333, entryCount: 1 },
        { currency: 'USD', incomeCents: 5101, expenseCents: 251, netCents: 4850, entryCount: 4 },
      ],
    });
  });

  it('names the one currency and rounds the average half away from zero (1005 / 2 = 502.5 → 503)', async () => {
    expect(await report(d, 'summary', { currency: 'EUR' })).toEqual({
      totalIncomeCents: 5,
      totalExpenseCents: 1000,
      netCents: -995,
      entryCount: 2,
      avgTransactionCents: 503,
      currency: 'EUR',
      currencies: ['EUR'],
      isCurrencyMixed: false,
      currencyBreakdown: [{ currency: 'EUR', incomeCents: 5, expenseCents: 1000, netCents: -995, entryCount: 2 }],
    });
  });

  it('filters by project', async () => {
    expect(await report(d, 'summary', { projectId: d.P2 })).toEqual({
      totalIncomeCents: 1,
      totalExpenseCents: 333,
      netCents: -332,
      entryCount: 2,
      avgTransactionCents: 167,
      currency: 'MIXED',
      currencies: ['JPY', 'USD'],
      isCurrencyMixed: true,
      currencyBreakdown: [
        { currency: 'JPY', incomeCents: 0, expenseCents: 333, netCents: -333, entryCount: 1 },
        { currency: 'USD', incomeCents: 1, expenseCents: 0, netCents: 1, entryCount: 1 },
      ],
    });
  });

  it('takes from and to inclusively (the excluded entries of 2027-01-02/03 stay out)', async () => {
    const s = await report(d, 'summary', { from: '2027-01-01', to: '2027-01-31' });
    expect(s).toMatchObject({ totalIncomeCents: 5, totalExpenseCents: 1584, netCents: -1579, entryCount: 4, avgTransactionCents: 397 });
    expect(s.currencyBreakdown).toEqual([
      { currency: 'EUR', incomeCents: 5, expenseCents: 1000, netCents: -995, entryCount: 2 },
      { currency: 'JPY', incomeCents: 0, expenseCents: 333, netCents: -333, entryCount: 1 },
      { currency: 'USD', incomeCents: 0, expenseCents: 251, netCents: -251, entryCount: 1 },
    ]);
  });

  it('takes an open-ended range; 5001 / 2 = 2500.5 → 2501', async () => {
    expect(await report(d, 'summary', { from: '2027-02-01' })).toMatchObject({
      totalIncomeCents: 5001,
      totalExpenseCents: 0,
      entryCount: 2,
      avgTransactionCents: 2501,
      currency: 'USD',
      isCurrencyMixed: false,
    });
    expect(await report(d, 'summary', { to: '2026-12-31' })).toMatchObject({
      totalIncomeCents: 100,
      entryCount: 1,
      avgTransactionCents: 100,
    });
  });

  it('has zeros, currency null and no breakdown when nothing matches', async () => {
    expect(await report(d, 'summary', { currency: 'GBP' })).toEqual({
      totalIncomeCents: 0,
      totalExpenseCents: 0,
      netCents: 0,
      entryCount: 0,
      avgTransactionCents: 0,
      currency: null,
      currencies: [],
      isCurrencyMixed: false,
      currencyBreakdown: [],
    });
  });
});

describe('GET /reports/timeline', () => {
  it('groups by month by default, only months with entries when the range is open', async () => {
    const expected = [row('2026-12', 100, 0, 1), row('2027-01', 5, 1584, 4), row('2027-02', 5000, 0, 1), row('2027-03', 1, 0, 1)];
    expect(await report(d, 'timeline')).toEqual(expected);
    expect(await report(d, 'timeline', { groupBy: 'month' })).toEqual(expected);
    expect(await report(d, 'timeline', { from: '2027-02-01' })).toEqual(expected.slice(2));
  });

  it('zero-fills every month of a closed range, month boundaries inclusive', async () => {
    expect(await report(d, 'timeline', { groupBy: 'month', from: '2026-11-15', to: '2027-04-10' })).toEqual([
      zero('2026-11'),
      row('2026-12', 100, 0, 1),
      row('2027-01', 5, 1584, 4),
      row('2027-02', 5000, 0, 1),
      row('2027-03', 1, 0, 1),
      zero('2027-04'),
    ]);
    expect(await report(d, 'timeline', { groupBy: 'month', from: '2027-01-02', to: '2027-03-14' })).toEqual([
      row('2027-01', 5, 1000, 2),
      row('2027-02', 5000, 0, 1),
      zero('2027-03'),
    ]);
  });

  it('labels ISO weeks: 2026-12-31 and 2027-01-01 are both 2026-W53', async () => {
    expect(await report(d, 'timeline', { groupBy: 'week' })).toEqual([
      row('2026-W53', 100, 584, 3),
      row('2027-W01', 0, 1000, 1),
      row('2027-W04', 5, 0, 1),
      row('2027-W05', 5000, 0, 1),
      row('2027-W11', 1, 0, 1),
    ]);
    expect(await report(d, 'timeline', { groupBy: 'week', from: '2026-12-30', to: '2027-01-12' })).toEqual([
      row('2026-W53', 100, 584, 3),
      row('2027-W01', 0, 1000, 1),
      zero('2027-W02'),
    ]);
  });

  it('groups by day, zero-filled across the year boundary', async () => {
    expect(await report(d, 'timeline', { groupBy: 'day', from: '2026-12-31', to: '2027-01-02' })).toEqual([
      row('2026-12-31', 100, 0, 1),
      row('2027-01-01', 0, 584, 2),
      zero('2027-01-02'),
    ]);
    expect(await report(d, 'timeline', { groupBy: 'day', currency: 'EUR' })).toEqual([
      row('2027-01-04', 0, 1000, 1),
      row('2027-01-31', 5, 0, 1),
    ]);
  });
});

describe('GET /reports/by-party', () => {
  it('attributes INCOME to its fromParty and EXPENSE to its toParty, Unassigned for the missing side', async () => {
    expect(await report(d, 'by-party')).toEqual([
      {
        partyId: d.globex,
        partyName: 'Globex',
        partyType: 'PERSON',
        country: 'US',
        totalIncomeCents: 5000,
        totalExpenseCents: 333,
        entryCount: 2,
      },
      {
        partyId: null,
        partyName: 'Unassigned',
        partyType: null,
        country: null,
        totalIncomeCents: 5,
        totalExpenseCents: 1000,
        entryCount: 2,
      },
      {
        partyId: d.initech,
        partyName: 'Initech',
        partyType: 'ORGANIZATION',
        country: null,
        totalIncomeCents: 1,
        totalExpenseCents: 251,
        entryCount: 2,
      },
      {
        partyId: d.acme,
        partyName: 'Acme',
        partyType: 'ORGANIZATION',
        country: 'DE',
        totalIncomeCents: 100,
        totalExpenseCents: 0,
        entryCount: 1,
      },
    ]);
  });

  it('filters by project', async () => {
    const rows = await report(d, 'by-party', { projectId: d.P1 });
    expect(rows.map((r: any) => [r.partyName, r.totalIncomeCents, r.totalExpenseCents, r.entryCount])).toEqual([
      ['Globex', 5000, 0, 1],
      ['Unassigned', 5, 1000, 2],
      ['Initech', 0, 251, 1],
      ['Acme', 100, 0, 1],
    ]);
  });
});

describe('GET /reports/by-tag', () => {
  it('allocates each entry over its tags to the cent, remainders to the lowest tag ids', async () => {
    // E1 100 → 34/33/33, E2 251 → beta 126 / gamma 125, E4 5 → 2/2/1
    expect(await report(d, 'by-tag')).toEqual([
      { tagId: d.alpha, tagName: 'alpha', totalCents: 1036, incomeCents: 36, expenseCents: 1000, entryCount: 3 },
      { tagId: d.gamma, tagName: 'gamma', totalCents: 492, incomeCents: 34, expenseCents: 458, entryCount: 4 },
      { tagId: d.beta, tagName: 'beta', totalCents: 161, incomeCents: 35, expenseCents: 126, entryCount: 3 },
    ]);
  });

  it('adds up to the tagged amounts exactly', async () => {
    const rows = await report(d, 'by-tag', { currency: 'USD' });
    expect(rows).toEqual([
      { tagId: d.beta, tagName: 'beta', totalCents: 159, incomeCents: 33, expenseCents: 126, entryCount: 2 },
      { tagId: d.gamma, tagName: 'gamma', totalCents: 158, incomeCents: 33, expenseCents: 125, entryCount: 2 },
      { tagId: d.alpha, tagName: 'alpha', totalCents: 34, incomeCents: 34, expenseCents: 0, entryCount: 1 },
    ]);
    expect(rows.reduce((sum: number, r: any) => sum + r.totalCents, 0)).toBe(100 + 251);
    expect(await report(d, 'by-tag', { from: '2027-01-31', to: '2027-01-31' })).toEqual([
      { tagId: d.alpha, tagName: 'alpha', totalCents: 2, incomeCents: 2, expenseCents: 0, entryCount: 1 },
      { tagId: d.beta, tagName: 'beta', totalCents: 2, incomeCents: 2, expenseCents: 0, entryCount: 1 },
      { tagId: d.gamma, tagName: 'gamma', totalCents: 1, incomeCents: 1, expenseCents: 0, entryCount: 1 },
    ]);
  });
});

describe('GET /reports/by-project', () => {
  it('totals each project', async () => {
    expect(await report(d, 'by-project')).toEqual([
      { projectId: d.P1, projectName: 'Project 1', totalIncomeCents: 5105, totalExpenseCents: 1251, netCents: 3854, entryCount: 5 },
      { projectId: d.P2, projectName: 'Project 2', totalIncomeCents: 1, totalExpenseCents: 333, netCents: -332, entryCount: 2 },
    ]);
    expect(await report(d, 'by-project', { currency: 'JPY' })).toEqual([
      { projectId: d.P2, projectName: 'Project 2', totalIncomeCents: 0, totalExpenseCents: 333, netCents: -333, entryCount: 1 },
    ]);
  });
});

describe('GET /reports/flows', () => {
  it('links fromParty to toParty, merging entries of the same pair', async () => {
    const flow = (from: number | null, fromName: string, to: number | null, toName: string, totalCents: number, entryCount: number) => ({
      fromPartyId: from,
      fromPartyName: fromName,
      toPartyId: to,
      toPartyName: toName,
      totalCents,
      entryCount,
    });
    expect(await report(d, 'flows')).toEqual([
      flow(d.globex, 'Globex', d.acme, 'Acme', 5000, 1),
      flow(d.acme, 'Acme', null, 'Unassigned', 1000, 1),
      flow(d.initech, 'Initech', d.globex, 'Globex', 334, 2),
      flow(d.globex, 'Globex', d.initech, 'Initech', 251, 1),
      flow(d.acme, 'Acme', d.globex, 'Globex', 100, 1),
      flow(null, 'Unassigned', d.acme, 'Acme', 5, 1),
    ]);
  });
});

describe('GET /reports/flows is capped (REPORT_FLOWS_LIMIT, issue 18)', () => {
  it('gives the largest links up to the limit, with X-Truncated saying whether more were left out', async () => {
    const all = await report(d, 'flows');
    const get = () => d.api.get('/reports/flows', { token: d.token, query: { workspaceId: d.workspaceId } });
    const full = await get();
    expect(full.headers.get('x-truncated')).toBe('false');
    const limit = runtime().config.REPORT_FLOWS_LIMIT;
    expect(limit).toBe(1000);
    try {
      runtime().config.REPORT_FLOWS_LIMIT = 3;
      const capped = await get();
      expect(capped.status).toBe(200);
      expect(capped.body).toEqual(all.slice(0, 3));
      expect(capped.headers.get('x-truncated')).toBe('true');
      runtime().config.REPORT_FLOWS_LIMIT = all.length;
      expect((await get()).headers.get('x-truncated')).toBe('false');
    } finally {
      runtime().config.REPORT_FLOWS_LIMIT = limit;
    }
  });

  it('documents X-Truncated on the 200 answer in openapi.json', () => {
    const ok = buildOpenApiDocument().paths?.['/reports/flows']?.get?.responses?.['200'] as {
      headers?: Record<string, { schema: unknown }>;
    };
    expect(ok.headers?.['X-Truncated']?.schema).toEqual({ type: 'string', enum: ['true', 'false'] });
  });
});

describe('GET /reports/calendar', () => {
  it('gives the signed daily net of the days of the year that have entries', async () => {
    expect(await report(d, 'calendar', { year: 2027 })).toEqual([
      { date: '2027-01-01', totalCents: -584, entryCount: 2 },
      { date: '2027-01-04', totalCents: -1000, entryCount: 1 },
      { date: '2027-01-31', totalCents: 5, entryCount: 1 },
      { date: '2027-02-01', totalCents: 5000, entryCount: 1 },
      { date: '2027-03-15', totalCents: 1, entryCount: 1 },
    ]);
    expect(await report(d, 'calendar', { year: 2026 })).toEqual([{ date: '2026-12-31', totalCents: 100, entryCount: 1 }]);
    expect(await report(d, 'calendar', { year: 2027, projectId: d.P2 })).toEqual([
      { date: '2027-01-01', totalCents: -333, entryCount: 1 },
      { date: '2027-03-15', totalCents: 1, entryCount: 1 },
    ]);
    expect(await report(d, 'calendar', { year: 2025 })).toEqual([]);
  });
});

describe('GET /reports/distribution', () => {
  it('gives min, max, mean and percentile_cont quartiles per type, rounded half away from zero', async () => {
    expect(await report(d, 'distribution')).toEqual({
      // [1, 5, 100, 5000]: q1 = 1 + .75·4, median = 5 + .5·95 = 52.5, q3 = 100 + .25·4900, mean 1276.5
      INCOME: { count: 4, min: 1, max: 5000, mean: 1277, median: 53, q1: 4, q3: 1325, values: [1, 5, 100, 5000] },
      // [251, 333, 1000]: q1 = 251 + .5·82, q3 = 333 + .5·667 = 666.5
      EXPENSE: { count: 3, min: 251, max: 1000, mean: 528, median: 333, q1: 292, q3: 667, values: [251, 333, 1000] },
    });
  });

  it('interpolates at quarter positions (project P1)', async () => {
    expect(await report(d, 'distribution', { projectId: d.P1 })).toEqual({
      // [5, 100, 5000]: q1 = 5 + .5·95 = 52.5, q3 = 100 + .5·4900; mean 5105 / 3 = 1701.67
      INCOME: { count: 3, min: 5, max: 5000, mean: 1702, median: 100, q1: 53, q3: 2550, values: [5, 100, 5000] },
      // [251, 1000]: q1 = 251 + .25·749 = 438.25, median 625.5, q3 = 812.75
      EXPENSE: { count: 2, min: 251, max: 1000, mean: 626, median: 626, q1: 438, q3: 813, values: [251, 1000] },
    });
  });

  it('has count 0 and null statistics for a type without entries', async () => {
    const empty = { count: 0, min: null, max: null, mean: null, median: null, q1: null, q3: null, values: [] };
    expect(await report(d, 'distribution', { currency: 'GBP' })).toEqual({ INCOME: empty, EXPENSE: empty });
    expect(await report(d, 'distribution', { currency: 'JPY' })).toEqual({
      INCOME: empty,
      EXPENSE: { count: 1, min: 333, max: 333, mean: 333, median: 333, q1: 333, q3: 333, values: [333] },
    });
  });
});

describe('what reports count', () => {
  it('never counts VOIDED, REJECTED or CANCELLED entries, nor another workspace', async () => {
    // the excluded entries carry 6-digit amounts: none may appear in any figure
    const all = JSON.stringify(
      await Promise.all(
        ['summary', 'timeline', 'by-party', 'by-tag', 'by-project', 'flows', 'distribution'].map((p) =>
          report(d, p, p === 'timeline' ? { groupBy: 'day' } : {}),
        ),
      ),
    );
    for (const amount of ['999999', '888888', '777777', '123456']) expect(all).not.toContain(amount);
    expect(await report(d, 'calendar', { year: 2027 })).not.toContainEqual(expect.objectContaining({ date: '2027-01-02' }));
  });
});
