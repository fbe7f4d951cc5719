import { beforeAll, describe, expect, it } from 'vitest';
import { createEntry, actor, fxWorld, putRate, type FxWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { valuationOf } from './fx-world.js';

let api: Api;

beforeAll(async () => {
  api = await startServer();
});

const revalue = (w: FxWorld, body: Record<string, unknown>) =>
  api.post('/fx-rates/revalue', { workspaceId: w.workspaceId, ...body }, { token: w.token });

const events = async (w: FxWorld, id: number) => (await api.get(`/entries/${id}/events`, { token: w.token })).body as any[];

describe('POST /fx-rates/revalue', () => {
  it('recomputes the window from the rates stored now, records FX_REVALUED {from, to}, and is idempotent', async () => {
    const w = await fxWorld(api, 'EUR');
    await putRate(w, 'USD', '2026-05-01', '0.9');
    const inWindow = await createEntry(w, { baseCurrency: 'USD', amountCents: 1000, entryDate: '2026-05-03' });
    const base = await createEntry(w, { baseCurrency: 'EUR', amountCents: 500, entryDate: '2026-05-03' });
    const noRate = await createEntry(w, { baseCurrency: 'GBP', amountCents: 700, entryDate: '2026-05-03' });
    const outside = await createEntry(w, { baseCurrency: 'USD', amountCents: 1000, entryDate: '2026-05-05' });
    expect(await valuationOf(inWindow.id)).toEqual({ fxRate: '0.9', fxRateDate: '2026-05-01', amountBaseCents: 900 });
    expect(await valuationOf(base.id)).toEqual({ fxRate: '1', fxRateDate: '2026-05-03', amountBaseCents: 500 });
    expect(await valuationOf(noRate.id)).toEqual({ fxRate: null, fxRateDate: null, amountBaseCents: null });

    // a later correction of the rate leaves existing entries alone (frozen history) …
    await putRate(w, 'USD', '2026-05-02', '0.92');
    expect(await valuationOf(inWindow.id)).toEqual({ fxRate: '0.9', fxRateDate: '2026-05-01', amountBaseCents: 900 });
    const eventsBefore = (await events(w, inWindow.id)).length;

    // … until a revaluation of the window
    const res = await revalue(w, { fromDate: '2026-05-01', toDate: '2026-05-03' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ revalued: 1, unchanged: 1, skippedClosed: 0, missingRate: 1 });
    expect(await valuationOf(inWindow.id)).toEqual({ fxRate: '0.92', fxRateDate: '2026-05-02', amountBaseCents: 920 });
    expect(await valuationOf(outside.id)).toEqual({ fxRate: '0.9', fxRateDate: '2026-05-01', amountBaseCents: 900 }); // outside the window: kept
    const log = await events(w, inWindow.id);
    expect(log.length).toBe(eventsBefore + 1);
    expect(log.at(-1)).toMatchObject({
      kind: 'FX_REVALUED',
      actorType: 'USER',
      actorId: w.userId,
      data: {
        from: { fxRate: '0.9', fxRateDate: '2026-05-01', amountBaseCents: 900 },
        to: { fxRate: '0.92', fxRateDate: '2026-05-02', amountBaseCents: 920 },
      },
    });
    expect((await api.get(`/entries/${inWindow.id}/events/verify`, { token: w.token })).body).toMatchObject({ valid: true });
    expect((await events(w, base.id)).some((e) => e.kind === 'FX_REVALUED')).toBe(false);

    // nothing left to change: a second run changes nothing and records nothing
    expect((await revalue(w, { fromDate: '2026-05-01', toDate: '2026-05-03' })).body).toEqual({
      revalued: 0,
      unchanged: 2,
      skippedClosed: 0,
      missingRate: 1,
    });
    expect((await events(w, inWindow.id)).length).toBe(eventsBefore + 1);
  });

  it('values entries that had no rate once one exists, and clears a valuation whose rate was deleted', async () => {
    const w = await fxWorld(api, 'EUR');
    const entry = await createEntry(w, { baseCurrency: 'JPY', amountCents: 100_000, entryDate: '2026-06-10' });
    expect(await valuationOf(entry.id)).toEqual({ fxRate: null, fxRateDate: null, amountBaseCents: null });
    const rate = await putRate(w, 'JPY', '2026-06-09', '0.0061');
    expect((await revalue(w, { fromDate: '2026-06-10', toDate: '2026-06-10' })).body).toEqual({
      revalued: 1,
      unchanged: 0,
      skippedClosed: 0,
      missingRate: 0,
    });
    expect(await valuationOf(entry.id)).toEqual({ fxRate: '0.0061', fxRateDate: '2026-06-09', amountBaseCents: 61_000 });
    await api.del(`/fx-rates/${rate.id}`, { token: w.token });
    expect((await revalue(w, { fromDate: '2026-06-10', toDate: '2026-06-10' })).body).toEqual({
      revalued: 0,
      unchanged: 0,
      skippedClosed: 0,
      missingRate: 1,
    });
    expect(await valuationOf(entry.id)).toEqual({ fxRate: null, fxRateDate: null, amountBaseCents: null });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({
      kind: 'FX_REVALUED',
      data: { from: { fxRate: '0.0061', amountBaseCents: 61_000 }, to: { fxRate: null, fxRateDate: null, amountBaseCents: null } },
    });
  });

  it('never touches entries in closed periods, VOIDED entries, or other currencies when one is named', async () => {
    const w = await fxWorld(api, 'EUR');
    await putRate(w, 'USD', '2026-07-01', '0.9');
    await putRate(w, 'GBP', '2026-07-01', '1.15');
    const closedOne = await createEntry(w, { baseCurrency: 'USD', amountCents: 1000, entryDate: '2026-07-05' });
    const openOne = await createEntry(w, { baseCurrency: 'USD', amountCents: 1000, entryDate: '2026-08-05' });
    const gbp = await createEntry(w, { baseCurrency: 'GBP', amountCents: 1000, entryDate: '2026-08-05' });
    const voided = await createEntry(w, { baseCurrency: 'USD', amountCents: 1000, entryDate: '2026-08-06' });
    expect((await api.post(`/entries/${voided.id}/void`, { reason: 'test' }, { token: w.token })).status).toBe(200);
    const period = await api.post(
      '/accounting/periods',
      { workspaceId: w.workspaceId, name: 'July', startDate: '2026-07-01', endDate: '2026-07-31' },
      { token: w.token },
    );
    expect((await api.patch(`/accounting/periods/${period.body.id}/close`, {}, { token: w.token })).status).toBe(200);
    await putRate(w, 'USD', '2026-07-04', '0.95');
    await putRate(w, 'USD', '2026-08-04', '0.95');
    await putRate(w, 'GBP', '2026-08-04', '1.2');

    const res = await revalue(w, { fromDate: '2026-07-01', toDate: '2026-08-31', currency: 'USD' });
    expect(res.body).toEqual({ revalued: 1, unchanged: 0, skippedClosed: 1, missingRate: 0 });
    expect(await valuationOf(closedOne.id)).toEqual({ fxRate: '0.9', fxRateDate: '2026-07-01', amountBaseCents: 900 }); // as created
    expect(await valuationOf(openOne.id)).toEqual({ fxRate: '0.95', fxRateDate: '2026-08-04', amountBaseCents: 950 });
    expect(await valuationOf(gbp.id)).toEqual({ fxRate: null, fxRateDate: null, amountBaseCents: null });
    expect(await valuationOf(voided.id)).toEqual({ fxRate: null, fxRateDate: null, amountBaseCents: null });
    expect((await events(w, closedOne.id)).some((e) => e.kind === 'FX_REVALUED')).toBe(false);
  });

  it('validates its body: dates, order, strictness (400)', async () => {
    const w = await fxWorld(api, 'EUR');
    for (const body of [
      { fromDate: '2026-08-31', toDate: '2026-08-01' },
      { fromDate: '2026-02-30', toDate: '2026-03-01' },
      { toDate: '2026-03-01' },
      { fromDate: '2026-03-01', toDate: '2026-03-02', currency: 'usd' },
      { fromDate: '2026-03-01', toDate: '2026-03-02', dryRun: true },
    ]) {
      expectErrorBody(await revalue(w, body), 400, 'BAD_REQUEST');
    }
    const other = await actor(api, { permissions: ['fx.manage'] });
    expectErrorBody(
      await api.post(
        '/fx-rates/revalue',
        { workspaceId: w.workspaceId, fromDate: '2026-03-01', toDate: '2026-03-02' },
        { token: other.token },
      ),
      403,
      'FORBIDDEN',
    );
  });
});
