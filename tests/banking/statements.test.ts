import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { setStatus } from '../support/entries.js';
import { bankWorld, camt053, createEntry, imported, ofxSgml, type BankWorld, type Tx } from '../support/factories/index.js';
import { lines } from './helpers.js';

/**
 * A statement's counts and the status of its lines (CONTRACT §14): the statement object an import answers
 * and GET /bank-accounts/{id}/statements lists; lines UNMATCHED → MATCHED (a match) → UNMATCHED (the match
 * deleted or dissolved), UNMATCHED ↔ IGNORED; and the account's reconciliation status as of a date, with
 * its last statement.
 */
let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const eur = { baseCurrency: 'EUR' };

const STATEMENT_KEYS = [
  'autoMatchedCount',
  'bankAccountId',
  'closingBalanceCents',
  'createdAt',
  'duplicateCount',
  'fileName',
  'format',
  'id',
  'importedBy',
  'importedCount',
  'lineCount',
  'openingBalanceCents',
  'periodEnd',
  'periodStart',
  'sha256',
];

/** Opening 1,000.00; +1,200.00, −300.00, −150.00, −45.90 → closing 1,704.10. */
const JANUARY: Tx[] = [
  { date: '2026-01-05', amount: '1200.00', name: 'Acme Ltd', memo: 'Invoice INV-1001', id: 'J1' },
  { date: '2026-01-07', amount: '-300.00', name: 'Landlord', memo: 'Rent', id: 'J2' },
  { date: '2026-01-08', amount: '-150.00', name: 'Supplier', memo: 'Paper', id: 'J3' },
  { date: '2026-01-12', amount: '-45.90', name: 'Office Depot', memo: 'Toner', id: 'J4' },
];
const january = () => camt053(JANUARY, { opening: '1000.00', closing: '1704.10' });

async function status(w: BankWorld, asOf = '2026-12-31'): Promise<any> {
  const res = await api.get(`/bank-accounts/${w.account.id}/reconciliation`, { token: w.token, query: { asOf } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function statements(w: BankWorld): Promise<any[]> {
  const res = await api.get(`/bank-accounts/${w.account.id}/statements`, { token: w.token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const byExternalId = async (w: BankWorld) => Object.fromEntries((await lines(w)).map((l) => [l.externalId, l]));

const match = (w: BankWorld, lineIds: number[], entryIds: number[]) =>
  api.post('/reconciliation/matches', { lineIds, entryIds }, { token: w.token });

describe('the statement object (CONTRACT §14)', () => {
  it('an import answers the statement with exactly the contract’s fields, and the list shows the same objects', async () => {
    const w = await bankWorld(api);
    const file = january();
    const first = await imported(w, file, { fileName: 'january.xml' });
    expect(Object.keys(first).sort()).toEqual(STATEMENT_KEYS);
    expect(first).toMatchObject({
      bankAccountId: w.account.id,
      format: 'CAMT053',
      fileName: 'january.xml',
      sha256: createHash('sha256').update(file).digest('hex'),
      lineCount: 4,
      importedCount: 4,
      duplicateCount: 0,
      autoMatchedCount: 0,
      openingBalanceCents: 100_000,
      closingBalanceCents: 170_410,
      importedBy: w.userId,
    });
    // balances are null when the file states none
    const ofx = ofxSgml([{ date: '2026-02-02', amount: '-10.00', id: 'F1' }]);
    const second = await imported(w, ofx, { fileName: 'february.ofx' });
    expect(second).toMatchObject({ format: 'OFX', lineCount: 1, importedCount: 1, openingBalanceCents: null, closingBalanceCents: null });
    const byId = (list: any[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));
    expect(byId(await statements(w))).toEqual(byId([first, second]));
  });

  it('counts: a file again is all duplicates; an overlapping file counts its new and its known lines; lineCount = imported + duplicate', async () => {
    const w = await bankWorld(api);
    await imported(w, january());
    const again = await imported(w, january());
    expect(again).toMatchObject({ lineCount: 4, importedCount: 0, duplicateCount: 4, autoMatchedCount: 0 });
    const overlap = await imported(
      w,
      camt053([
        JANUARY[2],
        JANUARY[3],
        { date: '2026-01-20', amount: '-9.99', id: 'J5' },
        { date: '2026-01-21', amount: '5.00', id: 'J6' },
      ]),
    );
    expect(overlap).toMatchObject({ lineCount: 4, importedCount: 2, duplicateCount: 2 });
    const list = await statements(w);
    expect(list).toHaveLength(3);
    for (const st of list) expect(st.importedCount + st.duplicateCount).toBe(st.lineCount);
    // every stored line belongs to the statement that brought it
    const byId = await byExternalId(w);
    expect(Object.keys(byId).sort()).toEqual(['J1', 'J2', 'J3', 'J4', 'J5', 'J6']);
    const firstId = list.find((s) => s.importedCount === 4)!.id;
    for (const k of ['J1', 'J2', 'J3', 'J4']) expect(byId[k].statementId).toBe(firstId);
    for (const k of ['J5', 'J6']) expect(byId[k].statementId).toBe(overlap.id);
  });

  it('autoMatchedCount: lines matched at import when the account’s autoMatch is on; none when it is off', async () => {
    const on = await bankWorld(api, { autoMatch: true });
    await createEntry(on, { ...eur, entryType: 'INCOME', amountCents: 120_000, entryDate: '2026-01-05' });
    await createEntry(on, { ...eur, amountCents: 30_000, entryDate: '2026-01-07' });
    expect(await imported(on, january())).toMatchObject({ importedCount: 4, autoMatchedCount: 2 });
    expect((await lines(on, { status: 'MATCHED' })).map((l) => l.externalId)).toEqual(['J1', 'J2']);
    expect(await imported(on, january())).toMatchObject({ importedCount: 0, autoMatchedCount: 0 });

    const off = await bankWorld(api, { autoMatch: false });
    await createEntry(off, { ...eur, entryType: 'INCOME', amountCents: 120_000, entryDate: '2026-01-05' });
    expect(await imported(off, january())).toMatchObject({ importedCount: 4, autoMatchedCount: 0 });
    expect(await lines(off, { status: 'MATCHED' })).toEqual([]);
  });
});

describe('line status and the reconciliation status (CONTRACT §14)', () => {
  it('before any import: zero counts, the account’s opening balance, no last statement', async () => {
    const w = await bankWorld(api, { openingBalanceCents: 2_500 });
    expect(await status(w, '2026-01-31')).toEqual({
      bankAccountId: w.account.id,
      asOf: '2026-01-31',
      openingBalanceCents: 2_500,
      statementBalanceCents: 2_500,
      matched: { count: 0, amountCents: 0 },
      unmatched: { count: 0, amountCents: 0 },
      ignored: { count: 0, amountCents: 0 },
      lastStatement: null,
    });
  });

  it('import → match → ignore → delete the match → unignore: each line’s status and the signed counts follow', async () => {
    const w = await bankWorld(api, { openingBalanceCents: 100_000 });
    const st = await imported(w, january());
    const all = 120_000 - 30_000 - 15_000 - 4_590;
    const balance = 100_000 + all;
    const last = { id: st.id, closingBalanceCents: 170_410, computedBalanceCents: 170_410, agrees: true };
    const expectStatus = async (matched: [number, number], unmatched: [number, number], ignored: [number, number]) =>
      expect(await status(w)).toMatchObject({
        statementBalanceCents: balance, // the lines' statuses never change the balance
        matched: { count: matched[0], amountCents: matched[1] },
        unmatched: { count: unmatched[0], amountCents: unmatched[1] },
        ignored: { count: ignored[0], amountCents: ignored[1] },
        lastStatement: last,
      });

    let l = await byExternalId(w);
    for (const k of ['J1', 'J2', 'J3', 'J4']) expect(l[k]).toMatchObject({ status: 'UNMATCHED', matchId: null, ignoredReason: null });
    await expectStatus([0, 0], [4, all], [0, 0]);

    // match J1 (money in) and J3 (money out)
    const income = await createEntry(w, { ...eur, entryType: 'INCOME', amountCents: 120_000, entryDate: '2026-01-05' });
    const paper = await createEntry(w, { ...eur, amountCents: 15_000, entryDate: '2026-01-08' });
    const m1 = (await match(w, [l.J1.id], [income.id])).body;
    const m3 = (await match(w, [l.J3.id], [paper.id])).body;
    l = await byExternalId(w);
    expect(l.J1).toMatchObject({ status: 'MATCHED', matchId: m1.id });
    expect(l.J3).toMatchObject({ status: 'MATCHED', matchId: m3.id });
    await expectStatus([2, 120_000 - 15_000], [2, -30_000 - 4_590], [0, 0]);

    // ignore J2: only an UNMATCHED line can be; a MATCHED one is 409 either way
    const ignored = await api.post(`/bank-lines/${l.J2.id}/ignore`, { reason: 'internal transfer' }, { token: w.token });
    expect(ignored.body).toMatchObject({ id: l.J2.id, status: 'IGNORED', ignoredReason: 'internal transfer', matchId: null });
    expectErrorBody(await api.post(`/bank-lines/${l.J1.id}/ignore`, { reason: 'x' }, { token: w.token }), 409, 'CONFLICT');
    expectErrorBody(await api.post(`/bank-lines/${l.J1.id}/unignore`, {}, { token: w.token }), 409, 'CONFLICT');
    // an IGNORED line cannot be matched: the lines of a match must be UNMATCHED
    const rent = await createEntry(w, { ...eur, amountCents: 30_000, entryDate: '2026-01-07' });
    expectErrorBody(await match(w, [l.J2.id], [rent.id]), 409, 'CONFLICT');
    expect(await getLine(w, 'J2')).toMatchObject({ status: 'IGNORED', matchId: null });
    await expectStatus([2, 105_000], [1, -4_590], [1, -30_000]);

    // delete the match of J3: UNMATCHED again
    expect((await api.del(`/reconciliation/matches/${m3.id}`, { token: w.token })).body).toEqual({ success: true });
    expect(await getLine(w, 'J3')).toMatchObject({ status: 'UNMATCHED', matchId: null });
    await expectStatus([1, 120_000], [2, -15_000 - 4_590], [1, -30_000]);

    // unignore J2: UNMATCHED, its reason gone; now it can be matched
    const back = await api.post(`/bank-lines/${l.J2.id}/unignore`, {}, { token: w.token });
    expect(back.body).toMatchObject({ status: 'UNMATCHED', ignoredReason: null });
    expectErrorBody(await api.post(`/bank-lines/${l.J2.id}/unignore`, {}, { token: w.token }), 409, 'CONFLICT');
    await expectStatus([1, 120_000], [3, -30_000 - 15_000 - 4_590], [0, 0]);
    expect((await match(w, [l.J2.id], [rent.id])).status).toBe(200);
    await expectStatus([2, 120_000 - 30_000], [2, -15_000 - 4_590], [0, 0]);
  });

  it('moving a matched entry to CANCELLED or REJECTED dissolves its match: the line is UNMATCHED again and counted so', async () => {
    const w = await bankWorld(api);
    await imported(w, january());
    const l = await byExternalId(w);
    const rent = await createEntry(w, { ...eur, amountCents: 30_000, entryDate: '2026-01-07' });
    const paper = await createEntry(w, { ...eur, amountCents: 15_000, entryDate: '2026-01-08' });
    expect((await match(w, [l.J2.id], [rent.id])).status).toBe(200);
    expect((await match(w, [l.J3.id], [paper.id])).status).toBe(200);
    expect((await status(w)).matched).toEqual({ count: 2, amountCents: -45_000 });

    expect((await setStatus(w, rent.id, 'CANCELLED', 'not ours')).status).toBe(200);
    expect(await getLine(w, 'J2')).toMatchObject({ status: 'UNMATCHED', matchId: null });
    expect((await status(w)).matched).toEqual({ count: 1, amountCents: -15_000 });

    expect((await setStatus(w, paper.id, 'REJECTED', 'wrong supplier')).status).toBe(200);
    expect(await getLine(w, 'J3')).toMatchObject({ status: 'UNMATCHED', matchId: null });
    expect(await status(w)).toMatchObject({
      matched: { count: 0, amountCents: 0 },
      unmatched: { count: 4, amountCents: 120_000 - 30_000 - 15_000 - 4_590 },
    });
  });

  it('asOf: only lines booked up to that day (inclusive) are counted and summed', async () => {
    const w = await bankWorld(api, { openingBalanceCents: 100_000 });
    await imported(w, january());
    const l = await byExternalId(w);
    await api.post(`/bank-lines/${l.J4.id}/ignore`, { reason: 'x' }, { token: w.token });
    expect(await status(w, '2026-01-04')).toMatchObject({
      statementBalanceCents: 100_000,
      unmatched: { count: 0, amountCents: 0 },
      ignored: { count: 0, amountCents: 0 },
    });
    expect(await status(w, '2026-01-07')).toMatchObject({
      asOf: '2026-01-07',
      statementBalanceCents: 100_000 + 120_000 - 30_000,
      unmatched: { count: 2, amountCents: 90_000 },
      ignored: { count: 0, amountCents: 0 },
    });
    expect(await status(w, '2026-01-12')).toMatchObject({
      statementBalanceCents: 170_410,
      unmatched: { count: 3, amountCents: 75_000 },
      ignored: { count: 1, amountCents: -4_590 },
    });
  });

  it('lastStatement is the latest import: stated closing, stated opening + its lines, whether they agree; null balances without them', async () => {
    const w = await bankWorld(api);
    const jan = await imported(w, january());
    expect((await status(w)).lastStatement).toEqual({
      id: jan.id,
      closingBalanceCents: 170_410,
      computedBalanceCents: 170_410,
      agrees: true,
    });
    const ofx = await imported(w, ofxSgml([{ date: '2026-02-02', amount: '-10.00', id: 'F1' }]));
    expect((await status(w)).lastStatement).toEqual({ id: ofx.id, closingBalanceCents: null, computedBalanceCents: null, agrees: null });
    const feb = await imported(
      w,
      camt053([{ date: '2026-02-03', amount: '-4.10', id: 'F2' }], {
        opening: '1694.10',
        closing: '1690.00',
      }),
    );
    expect((await status(w)).lastStatement).toEqual({
      id: feb.id,
      closingBalanceCents: 169_000,
      computedBalanceCents: 169_000,
      agrees: true,
    });
  });
});

async function getLine(w: BankWorld, externalId: string): Promise<any> {
  return (await byExternalId(w))[externalId];
}
