import { beforeAll, describe, expect, it } from 'vitest';
import { createEntry, fxWorld, putRate, type FxWorld } from '../support/factories/index.js';
import { getEntry } from '../support/entries.js';
import { startServer, type Api } from '../support/http.js';

/** CONTRACT §17 through the API: entries are valued when created, ingested and edited (amount or date). */
let api: Api;
let w: FxWorld;

beforeAll(async () => {
  api = await startServer();
  w = await fxWorld(api, 'EUR');
  await putRate(w, 'JPY', '2026-01-10', '0.0061');
  await putRate(w, 'USD', '2026-01-10', '0.9');
  await putRate(w, 'USD', '2026-01-20', '0.95');
  await putRate(w, 'KWD', '2026-01-10', '3.05');
});

const valuation = (e: any) => ({ fxRate: e.fxRate, fxRateDate: e.fxRateDate, amountBaseCents: e.amountBaseCents });

describe('POST /entries', () => {
  it('values the new entry: 100000 JPY at 0.0061 = 61000 EUR cents, KWD from 3 decimals, the base currency at "1"', async () => {
    const jpy = await createEntry(w, { baseCurrency: 'JPY', amountCents: 100_000, entryDate: '2026-01-12' });
    expect(valuation(jpy)).toEqual({ fxRate: '0.0061', fxRateDate: '2026-01-10', amountBaseCents: 61_000 });
    const kwd = await createEntry(w, { baseCurrency: 'KWD', amountCents: 1234, entryDate: '2026-01-10' });
    expect(valuation(kwd)).toEqual({ fxRate: '3.05', fxRateDate: '2026-01-10', amountBaseCents: 376 });
    const eur = await createEntry(w, { baseCurrency: 'EUR', amountCents: 777, entryDate: '2026-01-12' });
    expect(valuation(eur)).toEqual({ fxRate: '1', fxRateDate: '2026-01-12', amountBaseCents: 777 });
    const none = await createEntry(w, { baseCurrency: 'GBP', amountCents: 777, entryDate: '2026-01-12' });
    expect(valuation(none)).toEqual({ fxRate: null, fxRateDate: null, amountBaseCents: null });
    expect(valuation(await getEntry(w, jpy.id))).toEqual(valuation(jpy));
  });

  it('keeps an entry’s valuation when a later rate arrives (frozen history)', async () => {
    const e = await createEntry(w, { baseCurrency: 'USD', amountCents: 1000, entryDate: '2026-01-12' });
    await putRate(w, 'USD', '2026-01-11', '0.91');
    expect(valuation(await getEntry(w, e.id))).toEqual({ fxRate: '0.9', fxRateDate: '2026-01-10', amountBaseCents: 900 });
  });
});

describe('PATCH /entries/{id}', () => {
  it('values the entry again when its amount or date changes, and not for other fields', async () => {
    const e = await createEntry(w, { baseCurrency: 'USD', amountCents: 1000, entryDate: '2026-01-10' });
    expect(valuation(e)).toEqual({ fxRate: '0.9', fxRateDate: '2026-01-10', amountBaseCents: 900 });
    const patch = async (body: Record<string, unknown>) => {
      const res = await api.patch(`/entries/${e.id}`, body, { token: w.token });
      expect(res.status, res.text).toBe(200);
      return valuation(res.body);
    };
    expect(await patch({ amountCents: 2001 })).toEqual({ fxRate: '0.9', fxRateDate: '2026-01-10', amountBaseCents: 1801 }); // 1800.9
    expect(await patch({ entryDate: '2026-01-21' })).toEqual({ fxRate: '0.95', fxRateDate: '2026-01-20', amountBaseCents: 1901 }); // 1900.95
    expect(await patch({ entryDate: '2026-01-27' })).toEqual({ fxRate: '0.95', fxRateDate: '2026-01-20', amountBaseCents: 1901 }); // 7 days old
    expect(await patch({ entryDate: '2026-01-28' })).toEqual({ fxRate: null, fxRateDate: null, amountBaseCents: null }); // 8 days old
    await putRate(w, 'USD', '2026-01-28', '1');
    expect(await patch({ description: 'no revaluation for a description' })).toEqual({
      fxRate: null,
      fxRateDate: null,
      amountBaseCents: null,
    });
  });
});

describe('POST /api/v1/ingest', () => {
  it('values a whole batch as it is created', async () => {
    const integration = await api.post('/integrations', { workspaceId: w.workspaceId, name: 'fx feed' }, { token: w.token });
    expect(integration.status, integration.text).toBe(200);
    const item = (externalId: string, baseCurrency: string, amountCents: number) => ({
      externalId,
      projectId: w.projectId,
      entryType: 'INCOME',
      amountCents,
      baseCurrency,
      entryDate: '2026-01-15',
    });
    const res = await api.post(
      '/api/v1/ingest',
      { entries: [item('a', 'JPY', 5000), item('b', 'EUR', 1234), item('c', 'CHF', 99), item('d', 'USD', 333)] },
      { headers: { 'X-API-Key': integration.body.apiKey } },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.created).toBe(4);
    const got = await Promise.all(res.body.results.map(async (r: any) => valuation(await getEntry(w, r.entryId))));
    expect(got).toEqual([
      { fxRate: '0.0061', fxRateDate: '2026-01-10', amountBaseCents: 3050 },
      { fxRate: '1', fxRateDate: '2026-01-15', amountBaseCents: 1234 },
      { fxRate: null, fxRateDate: null, amountBaseCents: null },
      { fxRate: '0.91', fxRateDate: '2026-01-11', amountBaseCents: 303 }, // 303.03, at the latest rate on or before 01-15
    ]);
  });
});
