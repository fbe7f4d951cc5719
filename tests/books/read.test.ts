import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { actor, addProjectMember, createKey, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { postRaw, rawAccounts } from './books-fixture.js';

/**
 * CONTRACT §23, Reading: the journal, trial balance, general ledger and statements over journal rows written
 * straight into the tables of a workspace without entries (so nothing else posts there).
 */
let api: Api;
let w: EntryWorld;
let a: Record<string, string>;

/** The documented pattern of a GET operation's `cursor` parameter (openapi.json). */
function documentedCursor(path: string): RegExp {
  const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
  const parameter = doc.paths[path].get.parameters.find((p: { name: string }) => p.name === 'cursor');
  return new RegExp(parameter.schema.pattern);
}
let T: number[];
const ws = () => ({ workspaceId: w.workspaceId });

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
  a = await rawAccounts(w.workspaceId, [
    ['1000', 'Bank', 'ASSET'],
    ['1100', 'Receivables', 'ASSET'],
    ['2000', 'Payables', 'LIABILITY'],
    ['3000', 'Owner equity', 'EQUITY'],
    ['4000', 'Sales', 'REVENUE'],
    ['5000', 'Supplies', 'EXPENSE'],
  ]);
  T = await postRaw(w.workspaceId, [
    {
      date: '2026-01-10',
      kind: 'OPENING',
      description: 'Opening',
      lines: [
        [a['1000'], 100_000, 0],
        [a['3000'], 0, 100_000],
      ],
    },
    {
      date: '2026-01-20',
      kind: 'MANUAL',
      description: 'Invoice',
      lines: [
        [a['1100'], 5_000, 0],
        [a['4000'], 0, 5_000],
      ],
    },
    {
      date: '2026-02-05',
      kind: 'MANUAL',
      description: 'Paper',
      lines: [
        [a['5000'], 2_000, 0],
        [a['1000'], 0, 2_000],
      ],
    },
    {
      date: '2026-02-05',
      kind: 'MANUAL',
      description: 'Ink on credit',
      lines: [
        [a['5000'], 300, 0],
        [a['2000'], 0, 300],
      ],
    },
  ]);
  T.push(
    ...(await postRaw(w.workspaceId, [
      {
        date: '2026-03-15',
        kind: 'REVERSAL',
        reverses: T[2],
        lines: [
          [a['1000'], 2_000, 0],
          [a['5000'], 0, 2_000],
        ],
      },
    ])),
  );
});

describe('GET /ledger/journal', () => {
  it('lists every transaction by date then id, with lines (code, name) and reversedBy', async () => {
    const res = await api.get('/ledger/journal', { token: w.token, query: ws() });
    expect(res.status).toBe(200);
    expect(res.body.items.map((t: any) => t.id)).toEqual(T);
    expect(res.body.nextCursor).toBeNull();
    const paper = res.body.items[2];
    expect(paper).toMatchObject({
      id: T[2],
      workspaceId: w.workspaceId,
      kind: 'MANUAL',
      date: '2026-02-05',
      reversedBy: T[4],
      reverses: null,
    });
    expect(paper.lines).toEqual([
      { categoryId: a['5000'], code: '5000', name: 'Supplies', debitCents: 2_000, creditCents: 0, description: null },
      { categoryId: a['1000'], code: '1000', name: 'Bank', debitCents: 0, creditCents: 2_000, description: null },
    ]);
    expect(res.body.items[4]).toMatchObject({ kind: 'REVERSAL', reverses: T[2], reversedBy: null });
  });

  it('filters by date range, kind and account', async () => {
    const ids = async (query: Record<string, string | number>) =>
      (await api.get('/ledger/journal', { token: w.token, query: { ...ws(), ...query } })).body.items.map((t: any) => t.id);
    expect(await ids({ from: '2026-01-15', to: '2026-02-28' })).toEqual([T[1], T[2], T[3]]);
    expect(await ids({ kind: 'MANUAL' })).toEqual([T[1], T[2], T[3]]);
    expect(await ids({ categoryId: a['5000'] })).toEqual([T[2], T[3], T[4]]);
    expectErrorBody(
      await api.get('/ledger/journal', { token: w.token, query: { ...ws(), from: '2026-02-01', to: '2026-01-01' } }),
      400,
      'BAD_REQUEST',
    );
  });

  it('pages by cursor without skipping or repeating, and refuses a cursor of another list', async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await api.get('/ledger/journal', { token: w.token, query: { ...ws(), limit: 2, cursor } });
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((t: any) => t.id));
      cursor = res.body.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(seen).toEqual(T);
    expect(pages).toBe(3);
    const first = await api.get('/ledger/journal', { token: w.token, query: { ...ws(), limit: 2 } });
    const foreign = await api.get('/ledger/journal', { token: w.token, query: { ...ws(), kind: 'MANUAL', cursor: first.body.nextCursor } });
    expectErrorBody(foreign, 400, 'BAD_REQUEST');
    expectErrorBody(await api.get('/ledger/journal', { token: w.token, query: { ...ws(), cursor: 'nonsense.x' } }), 400, 'BAD_REQUEST');
  });

  it('documents the shape of its cursors (issue 52): each nextCursor matches it, and `cursor=0`, which does not, is a 400', async () => {
    const journal = documentedCursor('/ledger/journal');
    const lines = documentedCursor('/ledger/accounts/{categoryId}/lines');
    const page = await api.get('/ledger/journal', { token: w.token, query: { ...ws(), limit: 1 } });
    const linePage = await api.get(`/ledger/accounts/${a['1000']}/lines`, { token: w.token, query: { limit: 1 } });
    expect(journal.test(page.body.nextCursor), page.body.nextCursor).toBe(true);
    expect(lines.test(linePage.body.nextCursor), linePage.body.nextCursor).toBe(true);
    for (const bad of ['0', 'abc']) {
      expect(journal.test(bad) || lines.test(bad), bad).toBe(false);
      expectErrorBody(await api.get('/ledger/journal', { token: w.token, query: { ...ws(), cursor: bad } }), 400, 'BAD_REQUEST');
      expectErrorBody(await api.get(`/ledger/accounts/${a['1000']}/lines`, { token: w.token, query: { cursor: bad } }), 400, 'BAD_REQUEST');
    }
  });

  it('GET /ledger/journal/{id} returns one transaction; an unknown id is a 404', async () => {
    const res = await api.get(`/ledger/journal/${T[4]}`, { token: w.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: T[4], kind: 'REVERSAL', reverses: T[2], date: '2026-03-15' });
    expectErrorBody(await api.get('/ledger/journal/999999999', { token: w.token }), 404, 'NOT_FOUND');
  });
});

describe('GET /ledger/trial-balance', () => {
  it('lists every account with a line up to asOf, by code, with equal totals', async () => {
    const res = await api.get('/ledger/trial-balance', { token: w.token, query: { ...ws(), asOf: '2026-02-28' } });
    expect(res.status).toBe(200);
    const row = (code: string, name: string, accountType: string, d: number, c: number) => ({
      categoryId: a[code],
      code,
      name,
      accountType,
      debitCents: d,
      creditCents: c,
      balanceCents: d - c,
    });
    expect(res.body).toEqual({
      asOf: '2026-02-28',
      currency: 'USD',
      accounts: [
        row('1000', 'Bank', 'ASSET', 100_000, 2_000),
        row('1100', 'Receivables', 'ASSET', 5_000, 0),
        row('2000', 'Payables', 'LIABILITY', 0, 300),
        row('3000', 'Owner equity', 'EQUITY', 0, 100_000),
        row('4000', 'Sales', 'REVENUE', 0, 5_000),
        row('5000', 'Supplies', 'EXPENSE', 2_300, 0),
      ],
      totals: { debitCents: 107_300, creditCents: 107_300 },
    });
  });

  it('counts the partial month up to asOf only (the balances table for earlier months)', async () => {
    const mid = await api.get('/ledger/trial-balance', { token: w.token, query: { ...ws(), asOf: '2026-01-15' } });
    expect(mid.body.accounts.map((x: any) => [x.code, x.balanceCents])).toEqual([
      ['1000', 100_000],
      ['3000', -100_000],
    ]);
    const later = await api.get('/ledger/trial-balance', { token: w.token, query: { ...ws(), asOf: '2026-03-15' } });
    expect(later.body.accounts.find((x: any) => x.code === '5000')).toMatchObject({
      debitCents: 2_300,
      creditCents: 2_000,
      balanceCents: 300,
    });
    expect(later.body.totals.debitCents).toBe(later.body.totals.creditCents);
    const before = await api.get('/ledger/trial-balance', { token: w.token, query: { ...ws(), asOf: '2025-12-31' } });
    expect(before.body).toMatchObject({ accounts: [], totals: { debitCents: 0, creditCents: 0 } });
  });
});

describe('GET /ledger/accounts/{categoryId}/lines', () => {
  it('gives opening, running and closing balances within a range', async () => {
    const res = await api.get(`/ledger/accounts/${a['1000']}/lines`, { token: w.token, query: { from: '2026-02-01', to: '2026-02-28' } });
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ id: a['1000'], code: '1000', accountType: 'ASSET' });
    expect(res.body.openingBalanceCents).toBe(100_000);
    expect(res.body.items).toEqual([
      {
        transactionId: T[2],
        kind: 'MANUAL',
        date: '2026-02-05',
        entryId: null,
        description: 'Paper',
        debitCents: 0,
        creditCents: 2_000,
        balanceCents: 98_000,
      },
    ]);
    expect(res.body.closingBalanceCents).toBe(98_000);
    expect(res.body.nextCursor).toBeNull();
  });

  it('pages one line at a time, each page carrying the running balance after its line and the same closing balance', async () => {
    const balances: number[] = [];
    let cursor: string | undefined;
    do {
      const res = await api.get(`/ledger/accounts/${a['1000']}/lines`, { token: w.token, query: { limit: 1, cursor } });
      expect(res.status).toBe(200);
      expect(res.body.openingBalanceCents).toBe(0);
      expect(res.body.closingBalanceCents).toBe(100_000);
      balances.push(...res.body.items.map((i: any) => i.balanceCents));
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(balances).toEqual([100_000, 98_000, 100_000]);
  });

  it('running balances stay right when a page starts inside a busy day of a month with earlier days', async () => {
    const busy = await entryWorld(api);
    const acc = await rawAccounts(busy.workspaceId, [
      ['1000', 'Bank', 'ASSET'],
      ['4000', 'Sales', 'REVENUE'],
    ]);
    // the signed amounts of account 1000, in general-ledger order (date, then transaction): debits +, credits -
    const moves: [date: string, cents: number][] = [
      ['2026-04-28', 500],
      ['2026-05-03', 1_000],
      ['2026-05-09', -250],
      ['2026-05-17', 70],
      ['2026-05-17', 30],
      ['2026-05-17', -45],
      ['2026-05-17', 8],
      ['2026-05-20', 1],
    ];
    await postRaw(
      busy.workspaceId,
      moves.map(([date, cents]) => ({
        date,
        kind: 'MANUAL' as const,
        lines: (cents > 0
          ? [
              [acc['1000'], cents, 0],
              [acc['4000'], 0, cents],
            ]
          : [
              [acc['4000'], -cents, 0],
              [acc['1000'], 0, -cents],
            ]) as [string, number, number][],
      })),
    );
    const expected = moves.map((_, i) => moves.slice(0, i + 1).reduce((sum, [, c]) => sum + c, 0));
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const res = await api.get(`/ledger/accounts/${acc['1000']}/lines`, { token: busy.token, query: { limit: 1, cursor } });
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((i: any) => i.balanceCents));
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(expected);
    const range = await api.get(`/ledger/accounts/${acc['1000']}/lines`, {
      token: busy.token,
      query: { from: '2026-05-17', to: '2026-05-17' },
    });
    expect(range.body.openingBalanceCents).toBe(1_250);
    expect(range.body.closingBalanceCents).toBe(1_313);
    const trial = await api.get('/ledger/trial-balance', {
      token: busy.token,
      query: { workspaceId: busy.workspaceId, asOf: '2026-05-17' },
    });
    expect(trial.body.accounts.find((x: any) => x.code === '1000').balanceCents).toBe(1_313);
  });

  it('answers 404 for an account of another workspace, 400 for a cursor of another account', async () => {
    const stranger = await entryWorld(api);
    expectErrorBody(await api.get(`/ledger/accounts/${a['1000']}/lines`, { token: stranger.token }), 404, 'NOT_FOUND');
    const first = await api.get(`/ledger/accounts/${a['1000']}/lines`, { token: w.token, query: { limit: 1 } });
    const other = await api.get(`/ledger/accounts/${a['5000']}/lines`, {
      token: w.token,
      query: { limit: 1, cursor: first.body.nextCursor },
    });
    expectErrorBody(other, 400, 'BAD_REQUEST');
  });
});

describe('statements', () => {
  it('GET /reports/profit-and-loss: the movement of P&L accounts in the range, normal direction positive', async () => {
    const feb = await api.get('/reports/profit-and-loss', { token: w.token, query: { ...ws(), from: '2026-02-01', to: '2026-02-28' } });
    expect(feb.body).toEqual({
      currency: 'USD',
      revenue: [],
      expenses: [{ categoryId: a['5000'], code: '5000', name: 'Supplies', amountCents: 2_300 }],
      totalRevenueCents: 0,
      totalExpenseCents: 2_300,
      netIncomeCents: -2_300,
    });
    const q1 = await api.get('/reports/profit-and-loss', { token: w.token, query: { ...ws(), from: '2026-01-01', to: '2026-03-31' } });
    expect(q1.body).toMatchObject({ totalRevenueCents: 5_000, totalExpenseCents: 300, netIncomeCents: 4_700 });
    const all = await api.get('/reports/profit-and-loss', { token: w.token, query: ws() });
    expect(all.body).toEqual(q1.body);
  });

  it('GET /reports/balance-sheet: totals agree, the P&L accounts are currentEarningsCents', async () => {
    const res = await api.get('/reports/balance-sheet', { token: w.token, query: { ...ws(), asOf: '2026-03-31' } });
    expect(res.body).toEqual({
      asOf: '2026-03-31',
      currency: 'USD',
      assets: [
        { categoryId: a['1000'], code: '1000', name: 'Bank', amountCents: 100_000 },
        { categoryId: a['1100'], code: '1100', name: 'Receivables', amountCents: 5_000 },
      ],
      liabilities: [{ categoryId: a['2000'], code: '2000', name: 'Payables', amountCents: 300 }],
      equity: [{ categoryId: a['3000'], code: '3000', name: 'Owner equity', amountCents: 100_000 }],
      currentEarningsCents: 4_700,
      totalAssetsCents: 105_000,
      totalLiabilitiesAndEquityCents: 105_000,
    });
    for (const asOf of ['2026-01-10', '2026-02-05', '2026-03-14']) {
      const b = (await api.get('/reports/balance-sheet', { token: w.token, query: { ...ws(), asOf } })).body;
      expect(b.totalAssetsCents).toBe(b.totalLiabilitiesAndEquityCents);
    }
  });
});

describe('who reads the books', () => {
  const READS = [
    ['/ledger/journal', {}],
    ['/ledger/trial-balance', {}],
    ['/ledger/open-items', { side: 'RECEIVABLE' }],
    ['/reports/profit-and-loss', {}],
    ['/reports/balance-sheet', {}],
  ] as const;

  it('any workspace member, without a permission', async () => {
    const member = await actor(api, { workspaceId: w.workspaceId, permissions: [] });
    for (const [path, extra] of READS)
      expect((await api.get(path, { token: member.token, query: { ...ws(), ...extra } })).status).toBe(200);
    expect((await api.get(`/ledger/journal/${T[0]}`, { token: member.token })).status).toBe(200);
    expect((await api.get(`/ledger/accounts/${a['1000']}/lines`, { token: member.token })).status).toBe(200);
  });

  it('a project-only member and an API key limited to projects get 403; a stranger 403 for the workspace, 404 for its objects', async () => {
    const pm = await actor(api, { permissions: [] });
    await addProjectMember(w.projectId, pm.id);
    const scoped = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.export'], projectIds: [w.projectId] });
    const whole = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.export'] });
    const stranger = await actor(api, {});
    for (const [path, extra] of READS) {
      const query = { ...ws(), ...extra };
      expectErrorBody(await api.get(path, { token: pm.token, query }), 403, 'FORBIDDEN');
      expectErrorBody(await api.get(path, { token: scoped.apiKey, query }), 403, 'FORBIDDEN');
      expectErrorBody(await api.get(path, { token: stranger.token, query }), 403, 'FORBIDDEN');
      expect((await api.get(path, { token: whole.apiKey, query })).status).toBe(200);
      expectErrorBody(await api.get(path, { query }), 401, 'UNAUTHORIZED');
    }
    expectErrorBody(await api.get(`/ledger/journal/${T[0]}`, { token: pm.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get(`/ledger/accounts/${a['1000']}/lines`, { token: scoped.apiKey }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get(`/ledger/journal/${T[0]}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get('/ledger/journal/export', { token: scoped.apiKey, query: ws() }), 403, 'FORBIDDEN');
    const noExport = await actor(api, { workspaceId: w.workspaceId, permissions: [] });
    expectErrorBody(await api.get('/ledger/journal/export', { token: noExport.token, query: ws() }), 403, 'FORBIDDEN');
  });
});
