import { beforeAll, describe, expect, it } from 'vitest';
import { actor, addProjectMember } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { buildDataset, report, type Dataset } from './dataset.js';

const REPORTS = ['summary', 'timeline', 'by-party', 'by-tag', 'by-project', 'flows', 'calendar', 'distribution'];
/** The query each report needs besides workspaceId. */
const EXTRA: Record<string, Record<string, string | number>> = { calendar: { year: 2027 } };

let api: Api;
let d: Dataset;

beforeAll(async () => {
  api = await startServer();
  d = await buildDataset(api);
});

describe('who may read reports', () => {
  it('needs a bearer token (401)', async () => {
    for (const path of REPORTS) {
      expectErrorBody(await api.get(`/reports/${path}`, { query: { workspaceId: d.workspaceId, ...EXTRA[path] } }), 401, 'UNAUTHORIZED');
    }
  });

  it('needs no permission: any workspace member reads every report', async () => {
    const member = await actor(api, { workspaceId: d.workspaceId, permissions: [] });
    expect(await report(d, 'summary', {}, member.token)).toEqual(await report(d, 'summary'));
    for (const path of REPORTS) await report(d, path, EXTRA[path], member.token);
  });

  it('refuses a workspace the caller is not a member of (403), for every report', async () => {
    const stranger = await actor(api, { workspaceId: d.otherWorkspaceId });
    for (const path of REPORTS) {
      const res = await api.get(`/reports/${path}`, { token: stranger.token, query: { workspaceId: d.workspaceId, ...EXTRA[path] } });
      expectErrorBody(res, 403, 'FORBIDDEN');
    }
    expectErrorBody(await api.get('/reports/summary', { token: stranger.token, query: { workspaceId: 2_000_000_000 } }), 403, 'FORBIDDEN');
  });

  it('shows a project-only member its projects only', async () => {
    const member = await actor(api, { permissions: [] });
    await addProjectMember(d.P2, member.id);
    expect(await report(d, 'summary', {}, member.token)).toEqual({
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
    expect(await report(d, 'by-project', {}, member.token)).toEqual([
      { projectId: d.P2, projectName: 'Project 2', totalIncomeCents: 1, totalExpenseCents: 333, netCents: -332, entryCount: 2 },
    ]);
    expect(await report(d, 'by-party', {}, member.token)).toEqual([
      {
        partyId: d.globex,
        partyName: 'Globex',
        partyType: 'PERSON',
        country: 'US',
        totalIncomeCents: 0,
        totalExpenseCents: 333,
        entryCount: 1,
      },
      {
        partyId: d.initech,
        partyName: 'Initech',
        partyType: 'ORGANIZATION',
        country: null,
        totalIncomeCents: 1,
        totalExpenseCents: 0,
        entryCount: 1,
      },
    ]);
    expect(await report(d, 'by-tag', {}, member.token)).toEqual([
      { tagId: d.gamma, tagName: 'gamma', totalCents: 333, incomeCents: 0, expenseCents: 333, entryCount: 1 },
    ]);
    expect(await report(d, 'timeline', { groupBy: 'month' }, member.token)).toEqual([
      { period: '2027-01', incomeCents: 0, expenseCents: 333, netCents: -333, entryCount: 1 },
      { period: '2027-03', incomeCents: 1, expenseCents: 0, netCents: 1, entryCount: 1 },
    ]);
    expect((await report(d, 'distribution', {}, member.token)).INCOME.values).toEqual([1]);
    // naming a project outside its reach shows nothing rather than that project's figures
    expect(await report(d, 'summary', { projectId: d.P1 }, member.token)).toMatchObject({ entryCount: 0, currency: null });
    expect(await report(d, 'flows', { projectId: d.P1 }, member.token)).toEqual([]);
  });
});

describe('invalid queries (400)', () => {
  const bad = (path: string, query: Record<string, string | number>) =>
    api.get(`/reports/${path}`, { token: d.token, query }).then((res) => expectErrorBody(res, 400, 'BAD_REQUEST'));

  it('requires workspaceId on every report', async () => {
    for (const path of REPORTS) await bad(path, { ...EXTRA[path] });
    await bad('summary', { workspaceId: 'abc' });
  });

  it('refuses from after to, and malformed dates', async () => {
    for (const path of REPORTS.filter((p) => p !== 'calendar')) {
      await bad(path, { workspaceId: d.workspaceId, from: '2027-02-01', to: '2027-01-31' });
    }
    await bad('summary', { workspaceId: d.workspaceId, from: '2027-13-01' });
    await bad('summary', { workspaceId: d.workspaceId, to: '31.01.2027' });
    // the same day on both ends is a valid range
    expect(await report(d, 'summary', { from: '2027-01-04', to: '2027-01-04' })).toMatchObject({ entryCount: 1, totalExpenseCents: 1000 });
  });

  it('refuses unknown groupBy, a missing or bad calendar year, a lower-case currency, a bad projectId', async () => {
    await bad('timeline', { workspaceId: d.workspaceId, groupBy: 'year' });
    await bad('calendar', { workspaceId: d.workspaceId });
    await bad('calendar', { workspaceId: d.workspaceId, year: 'twenty' });
    await bad('calendar', { workspaceId: d.workspaceId, year: 0 });
    await bad('summary', { workspaceId: d.workspaceId, currency: 'usd' });
    await bad('by-party', { workspaceId: d.workspaceId, projectId: 'x' });
  });

  it('refuses a zero-filled timeline of more than 100,000 periods', async () => {
    await bad('timeline', { workspaceId: d.workspaceId, groupBy: 'day', from: '1700-01-01', to: '2027-12-31' });
    const months = await report(d, 'timeline', { groupBy: 'month', from: '1700-01-01', to: '2027-12-31' });
    expect(months).toHaveLength(328 * 12);
    expect(months[0]).toEqual({ period: '1700-01', incomeCents: 0, expenseCents: 0, netCents: 0, entryCount: 0 });
  });
});
