import { beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Api } from '../support/http.js';
import { addDays } from '../support/entries.js';
import {
  bankWorld,
  camt053,
  createEntry,
  entryIn,
  entryWorld,
  imported,
  makeParty,
  type BankWorld,
  type Tx,
} from '../support/factories/index.js';
import { lines } from './helpers.js';

/**
 * GET /bank-lines/{id}/suggestions (CONTRACT §14): at most 5, best first; singles of the line's exact
 * (absolute) amount and groups of 2..5 adding up to it exactly, taken from the candidates only (the
 * account's workspace, the line's currency, PENDING/UNDER_REVIEW/COMPLETED, in no match, INCOME for money
 * in and EXPENSE for money out, within dateToleranceDays). Among suggestions of equal amount fit a closer
 * date ranks higher, a reference or invoice number of the entry found in the line ranks above one that is
 * not, and description and counterparty similarity break the remaining ties.
 *
 * Each ranking test creates the entry that must rank first last, so that an order by id alone fails it.
 */
let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const DAY = '2026-01-08';
const eur = { baseCurrency: 'EUR' };

/** A bank world (dateToleranceDays as given, 5 by default) with one imported line; returns the line. */
async function oneLine(tx: Partial<Tx> = {}, account: Record<string, unknown> = {}): Promise<{ w: BankWorld; line: any }> {
  const w = await bankWorld(api, account);
  await imported(w, camt053([{ date: DAY, amount: '-150.00', name: 'Northwind Supplies', memo: 'monthly order', id: 'S1', ...tx }]));
  const [line] = await lines(w);
  return { w, line };
}

/** An EXPENSE of 150.00 EUR (the line's amount) whose reference and text match nothing in the line unless given. */
const expense = (w: BankWorld, overrides: Record<string, unknown> = {}) =>
  createEntry(w, { ...eur, amountCents: 15_000, entryDate: DAY, reference: 'Q-7', description: 'Consulting', ...overrides });

async function suggestions(w: BankWorld, lineId: number): Promise<any[]> {
  const res = await api.get(`/bank-lines/${lineId}/suggestions`, { token: w.token });
  expect(res.status, res.text).toBe(200);
  for (const s of res.body) {
    expect(Object.keys(s).sort()).toEqual(['amountCents', 'entryIds', 'reasons', 'score']);
    expect(Object.keys(s.reasons).sort()).toEqual(['amount', 'date', 'reference', 'text']);
    for (const v of [s.score, ...Object.values(s.reasons)]) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(1);
    }
  }
  return res.body;
}

const entryIdsOf = (list: any[]) => list.map((s) => s.entryIds);

describe('suggestion ranking (CONTRACT §14)', () => {
  it('among singles of the exact amount, the closer date ranks higher, on either side of the booking date', async () => {
    const { w, line } = await oneLine();
    // the two farthest read most like the line: the date still decides
    const plus4 = await expense(w, { entryDate: addDays(DAY, 4), description: 'Northwind monthly order' });
    const minus3 = await expense(w, { entryDate: addDays(DAY, -3), description: 'Northwind monthly order' });
    const plus2 = await expense(w, { entryDate: addDays(DAY, 2) });
    const minus1 = await expense(w, { entryDate: addDays(DAY, -1) });
    const sameDay = await expense(w, { entryDate: DAY });
    const list = await suggestions(w, line.id);
    expect(entryIdsOf(list)).toEqual([[sameDay.id], [minus1.id], [plus2.id], [minus3.id], [plus4.id]]);
    for (const s of list) expect(s.amountCents).toBe(15_000);
    // the date reason follows the distance
    const dates = list.map((s) => s.reasons.date);
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    expect(dates[0]).toBeGreaterThan(dates[4]);
  });

  it('at equal date, an entry whose reference appears in the line’s reference ranks above one whose does not', async () => {
    const { w, line } = await oneLine({ ref: 'RF-2026-7781' });
    const other = await expense(w, { reference: 'PO-5512', description: 'Northwind monthly order' }); // reads more like the line
    const referenced = await expense(w, { reference: 'RF 2026/7781' }); // punctuation and case do not count
    const list = await suggestions(w, line.id);
    expect(entryIdsOf(list)).toEqual([[referenced.id], [other.id]]);
    expect(list[0].reasons.reference).toBeGreaterThan(list[1].reasons.reference);
  });

  it('at equal date, an invoice number of the entry (in its description) found in the line’s description ranks above none', async () => {
    const { w, line } = await oneLine({ memo: 'SEPA-UEBERWEISUNG Rechnung 88123 Januar' });
    const other = await expense(w, { description: 'Rechnung Januar Northwind 55120' }); // reads more like the line
    const invoiced = await expense(w, { description: 'Inv 88123' });
    const list = await suggestions(w, line.id);
    expect(entryIdsOf(list)).toEqual([[invoiced.id], [other.id]]);
    expect(list[0].reasons.reference).toBeGreaterThan(list[1].reasons.reference);
  });

  it('at equal date and no reference found, description and counterparty similarity break the tie', async () => {
    const { w, line } = await oneLine({ name: 'Paper World GmbH', memo: 'Paper World office paper' });
    const paperWorld = await makeParty(api, w.token, w.workspaceId, 'Paper World GmbH');
    const unlike = await expense(w, { description: 'Quarterly software licence', toPartyId: w.parties[3] });
    const alike = await expense(w, { description: 'Office paper', toPartyId: paperWorld });
    const list = await suggestions(w, line.id);
    expect(entryIdsOf(list)).toEqual([[alike.id], [unlike.id]]);
    expect(list[0].reasons.text).toBeGreaterThan(list[1].reasons.text);
  });

  it('a single of the exact amount ranks above a group adding up to it, even when the group is closer in date', async () => {
    const { w, line } = await oneLine();
    const single = await expense(w, { entryDate: addDays(DAY, 4) });
    const a = await expense(w, { amountCents: 9_000 });
    const b = await expense(w, { amountCents: 6_000 });
    const list = await suggestions(w, line.id);
    expect(entryIdsOf(list)).toEqual([[single.id], [a.id, b.id].sort((x, y) => x - y)]);
    expect(list[1].amountCents).toBe(15_000);
  });

  it('near amounts are never suggested: only exact singles, and groups that add up exactly', async () => {
    const { w, line } = await oneLine();
    await expense(w, { amountCents: 14_999 });
    await expense(w, { amountCents: 15_001 });
    const seven = await expense(w, { amountCents: 7_000 }); // 7,000 + 7,999 = 14,999: one cent short
    await expense(w, { amountCents: 7_999 });
    expect(await suggestions(w, line.id)).toEqual([]);
    const exact = await expense(w, { amountCents: 8_000 }); // 7,000 + 8,000 = 15,000, the one exact sum
    const list = await suggestions(w, line.id);
    expect(entryIdsOf(list)).toEqual([[seven.id, exact.id]]);
    expect(list[0].amountCents).toBe(15_000);
  });

  it('at most 5: of seven fitting singles, the five closest by date, best first', async () => {
    const { w, line } = await oneLine({}, { dateToleranceDays: 10 });
    const byDistance: number[] = [];
    for (const days of [7, 6, 5, 4, 3, 2, 1]) byDistance.unshift((await expense(w, { entryDate: addDays(DAY, days) })).id);
    const list = await suggestions(w, line.id);
    expect(list).toHaveLength(5);
    expect(entryIdsOf(list)).toEqual(byDistance.slice(0, 5).map((id) => [id]));
  });
});

describe('suggestion candidates (CONTRACT §14)', () => {
  it('only candidates appear: never another workspace, another currency, a dead status, the wrong type, outside the window or already matched', async () => {
    const { w, line } = await oneLine({}, { dateToleranceDays: 3 });
    // the candidates: PENDING, UNDER_REVIEW and COMPLETED, inside the window (its edges included)
    const pending = await expense(w, { entryDate: DAY });
    const underReview = await entryIn(w, 'UNDER_REVIEW', { ...eur, amountCents: 15_000, entryDate: addDays(DAY, -3), reference: 'Q-8' });
    const completed = await entryIn(w, 'COMPLETED', { ...eur, amountCents: 15_000, entryDate: addDays(DAY, 2), reference: 'Q-9' });

    // never: of each kind one single of the exact amount and a pair adding up to it
    const never: { id: number }[] = [];
    const other = await entryWorld(api);
    for (const amountCents of [15_000, 10_000, 5_000]) {
      never.push(await createEntry(other, { ...eur, amountCents, entryDate: DAY })); // another workspace
      never.push(await expense(w, { amountCents, baseCurrency: 'USD' })); // another currency
      never.push(await expense(w, { amountCents, entryType: 'INCOME' })); // money in, the line is money out
      never.push(await expense(w, { amountCents, entryDate: addDays(DAY, 4) })); // one day outside the window
      never.push(await expense(w, { amountCents, entryDate: addDays(DAY, -4) }));
      for (const dead of ['VOIDED', 'REJECTED', 'CANCELLED'])
        never.push(await entryIn(w, dead, { ...eur, amountCents, entryDate: DAY, reference: 'Q-7', description: 'Consulting' }));
    }
    // already in a match (with another line of the account)
    await imported(w, camt053([{ date: DAY, amount: '-150.00', id: 'S2' }]));
    const second = (await lines(w)).find((l) => l.externalId === 'S2');
    const taken = await expense(w);
    const m = await api.post('/reconciliation/matches', { lineIds: [second.id], entryIds: [taken.id] }, { token: w.token });
    expect(m.status, m.text).toBe(200);
    never.push(taken);

    const list = await suggestions(w, line.id);
    expect(entryIdsOf(list)).toEqual([[pending.id], [completed.id], [underReview.id]]);
    const suggested = list.flatMap((s) => s.entryIds);
    for (const e of never) expect(suggested).not.toContain(e.id);
  });

  it('money in is matched by INCOME entries only', async () => {
    const { w, line } = await oneLine({ amount: '150.00' });
    await expense(w); // EXPENSE: not for money in
    const income = await expense(w, { entryType: 'INCOME' });
    expect(entryIdsOf(await suggestions(w, line.id))).toEqual([[income.id]]);
  });
});
