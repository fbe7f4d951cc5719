import { beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Api } from '../support/http.js';
import { addDays, events, getEntry, setStatus } from '../support/entries.js';
import { bankWorld, camt053, createEntry, imported, type BankWorld, type Tx } from '../support/factories/index.js';
import { lines } from './helpers.js';

/**
 * POST /bank-accounts/{id}/auto-match → {matched} (CONTRACT §14): a line is matched (method AUTO,
 * createdBy null) when it has exactly one single-entry candidate of its exact amount and that entry is the
 * candidate of no other unmatched line of the account. Nothing ambiguous is matched automatically.
 * The accounts here have autoMatch off, so nothing is matched at import and each call is the subject.
 */
let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const eur = { baseCurrency: 'EUR' };
const TOLERANCE = 3;

async function world(txs: Tx[], account: Record<string, unknown> = {}): Promise<BankWorld & { byId: Record<string, any> }> {
  const w = await bankWorld(api, { dateToleranceDays: TOLERANCE, ...account });
  const st = await imported(w, camt053(txs));
  expect(st.autoMatchedCount).toBe(0);
  return { ...w, byId: await linesById(w) };
}

async function linesById(w: BankWorld): Promise<Record<string, any>> {
  return Object.fromEntries((await lines(w)).map((l) => [l.externalId, l]));
}

/** An EXPENSE in EUR (money out) of `amountCents` on `entryDate`. */
const expense = (w: BankWorld, amountCents: number, entryDate: string, overrides: Record<string, unknown> = {}) =>
  createEntry(w, { ...eur, amountCents, entryDate, ...overrides });

async function autoMatch(w: BankWorld): Promise<number> {
  const res = await api.post(`/bank-accounts/${w.account.id}/auto-match`, {}, { token: w.token });
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.body)).toEqual(['matched']);
  return res.body.matched;
}

/** The line is still UNMATCHED and each entry unreconciled, with no RECONCILED event. */
async function expectUntouched(w: BankWorld, externalId: string, entries: { id: number }[]): Promise<void> {
  const line = (await linesById(w))[externalId];
  expect(line).toMatchObject({ status: 'UNMATCHED', matchId: null });
  for (const e of entries) {
    expect(await getEntry(w, e.id)).toMatchObject({ isReconciled: false, reconciledAt: null });
    expect((await events(w, e.id)).map((ev) => ev.kind)).not.toContain('RECONCILED');
  }
}

/** The line is MATCHED with exactly this entry by an AUTO match nobody created; the entry reconciled by the system. */
async function expectAutoMatched(w: BankWorld, externalId: string, entry: { id: number }): Promise<void> {
  const line = (await linesById(w))[externalId];
  expect(line.status).toBe('MATCHED');
  const m = await api.get(`/reconciliation/matches/${line.matchId}`, { token: w.token });
  expect(m.status, m.text).toBe(200);
  expect(m.body).toMatchObject({ bankAccountId: w.account.id, lineIds: [line.id], entryIds: [entry.id], method: 'AUTO', createdBy: null });
  expect(await getEntry(w, entry.id)).toMatchObject({ isReconciled: true });
  expect((await events(w, entry.id)).at(-1)).toMatchObject({ kind: 'RECONCILED', actorType: 'SYSTEM', data: { matchId: m.body.id } });
}

describe('auto-match ambiguity (CONTRACT §14)', () => {
  it('one line with two candidate entries of its amount: not matched', async () => {
    const w = await world([{ date: '2026-01-10', amount: '-300.00', id: 'L' }]);
    const a = await expense(w, 30_000, '2026-01-09');
    const b = await expense(w, 30_000, '2026-01-12');
    expect(await autoMatch(w)).toBe(0);
    await expectUntouched(w, 'L', [a, b]);
  });

  it('two lines sharing their one candidate entry: neither is matched', async () => {
    const w = await world([
      { date: '2026-01-10', amount: '-20.00', id: 'L1' },
      { date: '2026-01-11', amount: '-20.00', id: 'L2' },
    ]);
    const e = await expense(w, 2_000, '2026-01-10');
    expect(await autoMatch(w)).toBe(0);
    await expectUntouched(w, 'L1', [e]);
    await expectUntouched(w, 'L2', [e]);
  });

  it('an entry outside the date tolerance is no candidate: not matched; at the tolerance’s edge: matched', async () => {
    const w = await world([
      { date: '2026-01-10', amount: '-77.00', id: 'FAR' },
      { date: '2026-01-20', amount: '-88.00', id: 'EDGE' },
    ]);
    const before = await expense(w, 7_700, addDays('2026-01-10', -(TOLERANCE + 1)));
    const after = await expense(w, 7_700, addDays('2026-01-10', TOLERANCE + 1));
    const edge = await expense(w, 8_800, addDays('2026-01-20', -TOLERANCE));
    expect(await autoMatch(w)).toBe(1);
    await expectUntouched(w, 'FAR', [before, after]);
    await expectAutoMatched(w, 'EDGE', edge);
  });

  it('an exact unique pair is matched; the count is the number of lines matched, and a second call finds nothing', async () => {
    const w = await world([
      { date: '2026-01-05', amount: '1200.00', id: 'IN' },
      { date: '2026-01-06', amount: '-45.90', id: 'OUT' },
      { date: '2026-01-07', amount: '-300.00', id: 'AMBIGUOUS' },
      { date: '2026-01-08', amount: '-150.00', id: 'SPLIT' },
    ]);
    const income = await createEntry(w, { ...eur, entryType: 'INCOME', amountCents: 120_000, entryDate: '2026-01-04' });
    const out = await expense(w, 4_590, '2026-01-06');
    const a = await expense(w, 30_000, '2026-01-07');
    const b = await expense(w, 30_000, '2026-01-07');
    // two entries adding up to a line are a suggestion, never an automatic match
    const part1 = await expense(w, 10_000, '2026-01-08');
    const part2 = await expense(w, 5_000, '2026-01-08');
    expect(await autoMatch(w)).toBe(2);
    await expectAutoMatched(w, 'IN', income);
    await expectAutoMatched(w, 'OUT', out);
    await expectUntouched(w, 'AMBIGUOUS', [a, b]);
    await expectUntouched(w, 'SPLIT', [part1, part2]);
    expect(await autoMatch(w)).toBe(0);
    expect((await lines(w, { status: 'MATCHED' })).map((l) => l.externalId)).toEqual(['IN', 'OUT']);
  });

  it('only single-entry candidates make a line ambiguous: a dead, other-currency, wrong-type or already matched entry, or a pair adding up, does not', async () => {
    const w = await world([
      { date: '2026-01-10', amount: '-64.00', id: 'L' },
      { date: '2026-01-10', amount: '-64.00', id: 'TAKEN' },
    ]);
    const taken = await expense(w, 6_400, '2026-01-10');
    const m = await api.post('/reconciliation/matches', { lineIds: [w.byId.TAKEN.id], entryIds: [taken.id] }, { token: w.token });
    expect(m.status, m.text).toBe(200);
    const voided = await expense(w, 6_400, '2026-01-10');
    expect((await setStatus(w, voided.id, 'VOIDED', 'duplicate')).status).toBe(200);
    const cancelled = await expense(w, 6_400, '2026-01-10');
    expect((await setStatus(w, cancelled.id, 'CANCELLED', 'not ours')).status).toBe(200);
    await expense(w, 6_400, '2026-01-10', { baseCurrency: 'USD' });
    await expense(w, 6_400, '2026-01-10', { entryType: 'INCOME' });
    // two candidates adding up to the line are no single-entry candidate either
    await expense(w, 4_000, '2026-01-10');
    await expense(w, 2_400, '2026-01-10');
    const theOne = await expense(w, 6_400, '2026-01-11');
    expect(await autoMatch(w)).toBe(1);
    await expectAutoMatched(w, 'L', theOne);
  });

  it('an ambiguity that goes away: once one of two entries is voided, or the other line ignored, the rest is matched', async () => {
    const w = await world([
      { date: '2026-01-10', amount: '-300.00', id: 'TWO_ENTRIES' },
      { date: '2026-01-15', amount: '-20.00', id: 'L1' },
      { date: '2026-01-16', amount: '-20.00', id: 'L2' },
    ]);
    const a = await expense(w, 30_000, '2026-01-09');
    const b = await expense(w, 30_000, '2026-01-11');
    const shared = await expense(w, 2_000, '2026-01-15');
    expect(await autoMatch(w)).toBe(0);

    expect((await setStatus(w, a.id, 'VOIDED', 'entered twice')).status).toBe(200);
    const ignored = await api.post(`/bank-lines/${w.byId.L2.id}/ignore`, { reason: 'card refund, booked elsewhere' }, { token: w.token });
    expect(ignored.status, ignored.text).toBe(200);
    expect(await autoMatch(w)).toBe(2);
    await expectAutoMatched(w, 'TWO_ENTRIES', b);
    await expectAutoMatched(w, 'L1', shared);
    expect((await linesById(w)).L2).toMatchObject({ status: 'IGNORED', matchId: null });
  });

  it('only unmatched lines of the same account compete for an entry: a line of another account does not make it ambiguous', async () => {
    const w = await world([{ date: '2026-01-10', amount: '-20.00', id: 'L' }]);
    const second = await api.post(
      '/bank-accounts',
      {
        workspaceId: w.workspaceId,
        name: 'Savings',
        currency: 'EUR',
        projectId: w.projectId,
        autoMatch: false,
        dateToleranceDays: TOLERANCE,
      },
      { token: w.token },
    );
    expect(second.status, second.text).toBe(200);
    await imported({ ...w, account: second.body }, camt053([{ date: '2026-01-10', amount: '-20.00', id: 'L' }]));
    const e = await expense(w, 2_000, '2026-01-10');
    expect(await autoMatch(w)).toBe(1);
    await expectAutoMatched(w, 'L', e);
    // the other account's line has no candidate left
    const other = await api.post(`/bank-accounts/${second.body.id}/auto-match`, {}, { token: w.token });
    expect(other.body).toEqual({ matched: 0 });
  });

  it('after an import on an account with autoMatch on, the statement counts the lines it matched; ambiguous ones stay unmatched', async () => {
    const w = await bankWorld(api, { autoMatch: true, dateToleranceDays: TOLERANCE });
    const income = await createEntry(w, { ...eur, entryType: 'INCOME', amountCents: 50_000, entryDate: '2026-02-02' });
    const rent = await expense(w, 90_000, '2026-02-01');
    await expense(w, 1_250, '2026-02-03');
    await expense(w, 1_250, '2026-02-04');
    const st = await imported(
      w,
      camt053([
        { date: '2026-02-02', amount: '500.00', id: 'P1' },
        { date: '2026-02-01', amount: '-900.00', id: 'P2' },
        { date: '2026-02-03', amount: '-12.50', id: 'P3' },
      ]),
    );
    expect(st).toMatchObject({ lineCount: 3, importedCount: 3, duplicateCount: 0, autoMatchedCount: 2 });
    await expectAutoMatched(w, 'P1', income);
    await expectAutoMatched(w, 'P2', rent);
    expect((await linesById(w)).P3).toMatchObject({ status: 'UNMATCHED', matchId: null });
  });
});
