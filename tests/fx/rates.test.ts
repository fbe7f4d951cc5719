import { beforeAll, describe, expect, it } from 'vitest';
import { actor, ecbXml, fxWorld, putRate, type FxWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { ISO_TIMESTAMP } from '../support/entries.js';
import { importFile } from './fx-world.js';

let api: Api;
let w: FxWorld;

beforeAll(async () => {
  api = await startServer();
  w = await fxWorld(api, 'EUR');
});

const list = async (query: Record<string, string | number> = {}, token = w.token) => {
  const res = await api.get('/fx-rates', { token, query: { workspaceId: w.workspaceId, ...query } });
  expect(res.status).toBe(200);
  return res.body as any[];
};

describe('POST /fx-rates', () => {
  it('creates a rate and returns the contract object, rate in canonical spelling', async () => {
    const rate = await putRate(w, 'USD', '2026-02-02', '0.91270');
    expect(Object.keys(rate).sort()).toEqual(['createdAt', 'currency', 'id', 'rate', 'rateDate', 'source', 'workspaceId']);
    expect(rate).toMatchObject({ workspaceId: w.workspaceId, currency: 'USD', rateDate: '2026-02-02', rate: '0.9127', source: 'MANUAL' });
    expect(rate.createdAt).toMatch(ISO_TIMESTAMP);
  });

  it('upserts per workspace, currency and date: same id, new rate, one row', async () => {
    const first = await putRate(w, 'GBP', '2026-02-03', '1.17');
    const second = await putRate(w, 'GBP', '2026-02-03', '1.1725');
    expect(second.id).toBe(first.id);
    expect(second.rate).toBe('1.1725');
    expect(second.createdAt).toBe(first.createdAt);
    expect((await list({ currency: 'GBP' })).map((r) => [r.rateDate, r.rate])).toEqual([['2026-02-03', '1.1725']]);
  });

  it('keeps every digit: 15 significant digits and 10 decimals round-trip exactly', async () => {
    expect((await putRate(w, 'CHF', '2026-02-04', '12345.6789012345')).rate).toBe('12345.6789012345');
    expect((await putRate(w, 'CHF', '2026-02-05', '0.0000000001')).rate).toBe('0.0000000001');
    expect((await putRate(w, 'CHF', '2026-02-06', '123456789012345')).rate).toBe('123456789012345');
  });

  it.each([
    ['0', 'zero'],
    ['0.0000000000', 'zero with decimals'],
    ['-1.5', 'negative'],
    ['1.00000000001', '11 decimals'],
    ['1234567890.123456', '16 significant digits'],
    ['1234567890123456', '16 integer digits'],
    ['1e3', 'exponent'],
    ['1,5', 'comma'],
    [' 1.5', 'blank'],
    ['.5', 'no units digit'],
  ])('refuses rate %j (%s) with 400', async (rate) => {
    const res = await api.post(
      '/fx-rates',
      { workspaceId: w.workspaceId, currency: 'USD', rateDate: '2026-02-02', rate },
      { token: w.token },
    );
    expectErrorBody(res, 400, 'BAD_REQUEST');
  });

  it('refuses a number instead of a string, a bad currency or date, unknown fields (400)', async () => {
    const ok = { workspaceId: w.workspaceId, currency: 'USD', rateDate: '2026-02-02', rate: '1.1' };
    for (const body of [
      { ...ok, rate: 1.1 },
      { ...ok, currency: 'usd' },
      { ...ok, rateDate: '2026-02-30' },
      { ...ok, source: 'IMPORT' },
    ]) {
      expectErrorBody(await api.post('/fx-rates', body, { token: w.token }), 400, 'BAD_REQUEST');
    }
  });

  it('refuses a rate for the base currency itself (its rate is always "1")', async () => {
    const res = await api.post(
      '/fx-rates',
      { workspaceId: w.workspaceId, currency: 'EUR', rateDate: '2026-02-02', rate: '1' },
      { token: w.token },
    );
    expectErrorBody(res, 400, 'BAD_REQUEST');
  });
});

describe('GET /fx-rates', () => {
  it('filters by currency and an inclusive date window, ordered by currency then date', async () => {
    const x = await fxWorld(api, 'USD');
    for (const [c, d, r] of [
      ['EUR', '2026-03-01', '1.08'],
      ['EUR', '2026-03-02', '1.09'],
      ['EUR', '2026-03-03', '1.1'],
      ['JPY', '2026-03-02', '0.0067'],
    ]) {
      await putRate(x, c, d, r);
    }
    const get = async (query: Record<string, string>) =>
      (await api.get('/fx-rates', { token: x.token, query: { workspaceId: x.workspaceId, ...query } })).body.map(
        (r: any) => `${r.currency} ${r.rateDate} ${r.rate}`,
      );
    expect(await get({})).toEqual(['EUR 2026-03-01 1.08', 'EUR 2026-03-02 1.09', 'EUR 2026-03-03 1.1', 'JPY 2026-03-02 0.0067']);
    expect(await get({ currency: 'EUR', fromDate: '2026-03-02', toDate: '2026-03-03' })).toEqual([
      'EUR 2026-03-02 1.09',
      'EUR 2026-03-03 1.1',
    ]);
    expect(await get({ fromDate: '2026-03-02', toDate: '2026-03-02' })).toEqual(['EUR 2026-03-02 1.09', 'JPY 2026-03-02 0.0067']);
    const bad = await api.get('/fx-rates', {
      token: x.token,
      query: { workspaceId: x.workspaceId, fromDate: '2026-03-03', toDate: '2026-03-01' },
    });
    expectErrorBody(bad, 400, 'BAD_REQUEST');
  });
});

describe('DELETE /fx-rates/{id}', () => {
  it('deletes the rate; a second delete is 404', async () => {
    const rate = await putRate(w, 'SEK', '2026-02-02', '0.087');
    expect((await api.del(`/fx-rates/${rate.id}`, { token: w.token })).body).toEqual({ success: true });
    expect(await list({ currency: 'SEK' })).toEqual([]);
    expectErrorBody(await api.del(`/fx-rates/${rate.id}`, { token: w.token }), 404, 'NOT_FOUND');
  });
});

describe('access (CONTRACT §17, §2)', () => {
  it('writes need fx.manage (403 before anything else), reads need membership only', async () => {
    const reader = await actor(api, { workspaceId: w.workspaceId, permissions: [] });
    const rate = await putRate(w, 'NOK', '2026-02-02', '0.085');
    const body = { workspaceId: w.workspaceId, currency: 'USD', rateDate: '2026-02-02', rate: '1.1' };
    expectErrorBody(await api.post('/fx-rates', body, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del(`/fx-rates/${rate.id}`, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await importFile({ api, token: reader.token, workspaceId: w.workspaceId }, '2026-02-02,USD,1.1\n'), 403, 'FORBIDDEN');
    const revalue = { workspaceId: w.workspaceId, fromDate: '2026-01-01', toDate: '2026-12-31' };
    expectErrorBody(await api.post('/fx-rates/revalue', revalue, { token: reader.token }), 403, 'FORBIDDEN');
    expect((await list({ currency: 'NOK' }, reader.token)).map((r) => r.id)).toEqual([rate.id]);
    expectErrorBody(await api.get('/fx-rates', { query: { workspaceId: w.workspaceId } }), 401, 'UNAUTHORIZED');
  });

  it('a foreign workspaceId is 403, a foreign rate id 404', async () => {
    const stranger = await actor(api, { permissions: ['fx.manage'] });
    const rate = await putRate(w, 'DKK', '2026-02-02', '0.134');
    const body = { workspaceId: w.workspaceId, currency: 'USD', rateDate: '2026-02-02', rate: '1.1' };
    expectErrorBody(await api.post('/fx-rates', body, { token: stranger.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/fx-rates', { token: stranger.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    expectErrorBody(await importFile({ api, token: stranger.token, workspaceId: w.workspaceId }, '2026-02-02,USD,1.1\n'), 403, 'FORBIDDEN');
    const revalue = { workspaceId: w.workspaceId, fromDate: '2026-01-01', toDate: '2026-12-31' };
    expectErrorBody(await api.post('/fx-rates/revalue', revalue, { token: stranger.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del(`/fx-rates/${rate.id}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expect((await list({ currency: 'DKK' })).length).toBe(1);
  });
});

describe('POST /fx-rates/import', () => {
  it('imports CSV date,currency,rate (header optional): new rates and replaced ones counted apart', async () => {
    const x = await fxWorld(api, 'USD');
    await putRate(x, 'EUR', '2026-04-01', '1.05');
    const csv = 'date,currency,rate\n2026-04-01,EUR,1.0812\n\n2026-04-02,EUR,1.0823\r\n2026-04-02,JPY,0.00665\n';
    const res = await importFile(x, csv);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: 2, updated: 1 });
    const rows = (await api.get('/fx-rates', { token: x.token, query: { workspaceId: x.workspaceId } })).body;
    expect(rows.map((r: any) => `${r.currency} ${r.rateDate} ${r.rate} ${r.source}`)).toEqual([
      'EUR 2026-04-01 1.0812 IMPORT',
      'EUR 2026-04-02 1.0823 IMPORT',
      'JPY 2026-04-02 0.00665 IMPORT',
    ]);
    expect((await importFile(x, '2026-04-03,GBP,1.27\n')).body).toEqual({ imported: 1, updated: 0 });
  });

  it('takes an Idempotency-Key like any POST (CONTRACT §1): the repeat replays the first answer, importing once', async () => {
    const x = await fxWorld(api, 'USD');
    const send = () => {
      const form = new FormData();
      form.append('file', new Blob(['2026-05-04,EUR,1.0901\n'], { type: 'text/csv' }), 'rates.csv');
      return api.request('POST', '/fx-rates/import', {
        token: x.token,
        query: { workspaceId: x.workspaceId },
        rawBody: form,
        headers: { 'Idempotency-Key': 'fx-import-once' },
      });
    };
    const first = await send();
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ imported: 1, updated: 0 });
    const again = await send();
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('is all or nothing: any bad line refuses the file with every problem and its line number', async () => {
    const x = await fxWorld(api, 'USD');
    const csv = [
      'date,currency,rate', // 1
      '2026-04-01,EUR,1.08', // 2 fine
      '2026-04-31,EUR,1.08', // 3 bad date
      '2026-04-02,eur,1.08', // 4 bad currency
      '2026-04-02,GBP,0', // 5 zero
      '2026-04-02,GBP', // 6 two columns
      '2026-04-01,EUR,1.09', // 7 duplicate of line 2
      '2026-04-02,USD,1', // 8 base currency
      '2026-04-02,CHF,1.123456789012', // 9 12 decimals
    ].join('\n');
    const res = await importFile(x, csv);
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues.map((i: any) => i.line)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(res.body.issues[4].message).toContain('line 2');
    expect((await api.get('/fx-rates', { token: x.token, query: { workspaceId: x.workspaceId } })).body).toEqual([]);
  });

  it('refuses a request without a file part (400), a non-multipart body (415), a file without rates (400)', async () => {
    const form = new FormData();
    form.append('other', new Blob(['2026-04-01,EUR,1.08']), 'rates.csv');
    expectErrorBody(
      await api.request('POST', '/fx-rates/import', { token: w.token, query: { workspaceId: w.workspaceId }, rawBody: form }),
      400,
      'BAD_REQUEST',
    );
    const json = await api.post('/fx-rates/import', { file: 'x' }, { token: w.token, query: { workspaceId: w.workspaceId } });
    expectErrorBody(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectErrorBody(await importFile(w, 'date,currency,rate\n'), 400, 'BAD_REQUEST');
  });

  it('imports ECB XML into an EUR workspace, each rate inverted exactly and rounded half to even', async () => {
    const x = await fxWorld(api, 'EUR');
    const xml = ecbXml({
      '2026-05-04': { USD: '1.0956', JPY: '162.5', GBP: '0.8', KWD: '0.3125' },
      '2026-05-05': { USD: '1.1' },
    });
    const res = await importFile(x, xml, 'eurofxref-hist.xml');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: 5, updated: 0 });
    const rows = (await api.get('/fx-rates', { token: x.token, query: { workspaceId: x.workspaceId } })).body;
    // 1/0.8 = 1.25, 1/0.3125 = 3.2 exactly; 1/1.0956 = 0.912741876597298…; 1/162.5 = 0.006153846153846…;
    // 1/1.1 = 0.909090909090…: each rounded once to 10 decimals
    expect(rows.map((r: any) => `${r.currency} ${r.rateDate} ${r.rate}`)).toEqual([
      'GBP 2026-05-04 1.25',
      'JPY 2026-05-04 0.0061538462',
      'KWD 2026-05-04 3.2',
      'USD 2026-05-04 0.9127418766',
      'USD 2026-05-05 0.9090909091',
    ]);
  });

  it('keeps at most 15 significant digits when inverting small ECB rates (1/0.0000003 = 3333333.33333333)', async () => {
    const x = await fxWorld(api, 'EUR');
    // CLF stands in for a currency worth millions of euros (XAU, gold, is no currency of the list: CONTRACT §5)
    expect((await importFile(x, ecbXml({ '2026-05-04': { CLF: '0.0000003', IDR: '17000' } }), 'daily.xml')).status).toBe(200);
    const rows = (await api.get('/fx-rates', { token: x.token, query: { workspaceId: x.workspaceId } })).body;
    // 1/17000 = 0.0000588235294117647… → 10 decimals 0.0000588235
    expect(rows.map((r: any) => `${r.currency} ${r.rate}`)).toEqual(['CLF 3333333.33333333', 'IDR 0.0000588235']);
  });

  it('refuses ECB XML for a workspace that is not EUR-based (rates per EUR)', async () => {
    const x = await fxWorld(api, 'USD');
    const res = await importFile(x, ecbXml({ '2026-05-04': { USD: '1.0956' } }), 'daily.xml');
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.message).toContain('EUR');
  });

  it('reports bad ECB rows with their line numbers, and malformed XML with its line', async () => {
    const x = await fxWorld(api, 'EUR');
    const xml = ecbXml({ '2026-05-04': { USD: '1.0956', JPY: 'abc' }, '2026-13-01': { GBP: '0.85' } });
    const res = await importFile(x, xml, 'daily.xml');
    expectErrorBody(res, 400, 'BAD_REQUEST');
    // line 8 is the first day's Cube, 9 USD, 10 JPY, 11 its end, 12 the second day, 13 GBP
    expect(res.body.issues.map((i: any) => i.line)).toEqual([10, 13]);
    const broken = await importFile(x, '<?xml version="1.0"?>\n<Envelope>\n<Cube>\n</Envelope>\n', 'daily.xml');
    expectErrorBody(broken, 400, 'BAD_REQUEST');
    expect(broken.body.issues[0].line).toBeGreaterThan(1);
    expect((await api.get('/fx-rates', { token: x.token, query: { workspaceId: x.workspaceId } })).body).toEqual([]);
  });
});
