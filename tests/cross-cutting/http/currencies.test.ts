import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { createEntry, entryWorld, type EntryWorld, ecbXml, createIntegration } from '../../support/factories/index.js';
import { importFile as importRates } from '../../fx/fx-world.js';
import { ingest, item } from '../../integrations/helpers.js';
import { currencyExponent } from '../../../server/lib/money.js';

/** CONTRACT §5: a currency is a code of the ISO 4217 list on every route that takes one; exponents come from that list. */
let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});

const NOT_CURRENCIES = ['ABC', 'XTS', 'XXX', 'XAU', 'HRK'];

describe('ISO 4217 codes (CONTRACT §5)', () => {
  it('workspaces: create and edit refuse a code off the list', async () => {
    for (const code of NOT_CURRENCIES) {
      expectErrorBody(await api.post('/workspaces', { name: 'W', baseCurrency: code }, { token: w.token }), 400, 'BAD_REQUEST');
      expectErrorBody(await api.patch(`/workspaces/${w.workspaceId}`, { baseCurrency: code }, { token: w.token }), 400, 'BAD_REQUEST');
    }
    const ok = await api.post('/workspaces', { name: 'Dinars', baseCurrency: 'KWD' }, { token: w.token });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.baseCurrency).toBe('KWD');
  });

  it('entries, reports, fx rates, bank accounts and rules refuse it too', async () => {
    const entry = { projectId: w.projectId, entryType: 'EXPENSE', amountCents: 100, entryDate: '2026-01-15' };
    for (const code of NOT_CURRENCIES) {
      expectErrorBody(await api.post('/entries', { ...entry, baseCurrency: code }, { token: w.token }), 400, 'BAD_REQUEST');
      expectErrorBody(
        await api.get(`/reports/summary?workspaceId=${w.workspaceId}&currency=${code}`, { token: w.token }),
        400,
        'BAD_REQUEST',
      );
      expectErrorBody(
        await api.post(
          '/fx-rates',
          { workspaceId: w.workspaceId, currency: code, rateDate: '2026-01-01', rate: '1.5' },
          { token: w.token },
        ),
        400,
        'BAD_REQUEST',
      );
      const account = { workspaceId: w.workspaceId, name: 'Bank', currency: code, projectId: w.projectId };
      expectErrorBody(await api.post('/bank-accounts', account, { token: w.token }), 400, 'BAD_REQUEST');
      const rule = {
        workspaceId: w.workspaceId,
        name: 'R',
        conditions: [{ field: 'baseCurrency', operator: 'eq', value: code }],
        actions: [{ type: 'SET_EXCLUDE_FROM_SYNC', value: true }],
      };
      expectErrorBody(await api.post('/rules', rule, { token: w.token }), 400, 'BAD_REQUEST');
    }
    const list = await api.get(`/entries?workspaceId=${w.workspaceId}`, { token: w.token });
    expect(list.body.total).toBe(0);
  });

  it('a rate file naming a code off the list is a 400 naming the line; the ECB history skips replaced currencies', async () => {
    const bad = await importRates(w, 'date,currency,rate\n2026-01-02,USD,0.9\n2026-01-02,ABC,1.1\n');
    expectErrorBody(bad, 400, 'BAD_REQUEST');
    expect(JSON.stringify(bad.body)).toContain('ABC');
    expect((await api.get(`/fx-rates?workspaceId=${w.workspaceId}`, { token: w.token })).body).toEqual([]);
    const eur = await api.post('/workspaces', { name: 'Euro', baseCurrency: 'EUR' }, { token: w.token });
    const hist = await importRates(
      { api, token: w.token, workspaceId: eur.body.id },
      ecbXml({ '2022-12-30': { USD: '1.0666', HRK: '7.5365' } }),
      'hist.xml',
    );
    expect(hist.status, hist.text).toBe(200);
    expect(hist.body).toMatchObject({ imported: 1 });
  });

  it('ingest items with a code off the list are ERROR, the others are created', async () => {
    const created = await createIntegration(api, w.token, { workspaceId: w.workspaceId, name: 'Feed' });
    const res = await ingest(api, created.body.apiKey, {
      entries: [item(w.projectId, 'a', { baseCurrency: 'ABC' }), item(w.projectId, 'b')],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['ERROR', 'CREATED']);
  });

  it('exponents come from the same list (CSV export in major units)', async () => {
    expect([
      currencyExponent('USD'),
      currencyExponent('JPY'),
      currencyExponent('KWD'),
      currencyExponent('CLF'),
      currencyExponent('XCG'),
    ]).toEqual([2, 0, 3, 4, 2]);
    const e = await createEntry(w, { baseCurrency: 'KWD', amountCents: 12345 });
    const csv = await api.get(`/entries/export/csv?workspaceId=${w.workspaceId}`, { token: w.token });
    expect(csv.text.split('\n').find((l) => l.startsWith(`${e.id},`))).toContain(',12.345,KWD,');
  });
});
