import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { closePeriod, createEntry, bankWorld, camt053, importFile, imported, type BankWorld } from '../support/factories/index.js';
import { events, getEntry, setStatus } from '../support/entries.js';
import { lines, rowCount } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const eur = { baseCurrency: 'EUR' };

async function worldWithLines(account: Record<string, unknown> = {}) {
  const w = await bankWorld(api, account);
  const st = await imported(
    w,
    camt053([
      { date: '2026-01-05', amount: '1200.00', name: 'Acme Ltd', memo: 'Invoice INV-1001', id: 'L1' },
      { date: '2026-01-07', amount: '-300.00', name: 'Landlord', memo: 'Rent', id: 'L2' },
      { date: '2026-01-08', amount: '-150.00', name: 'Supplier', memo: 'two invoices', id: 'L3' },
    ]),
  );
  const [inLine, rentLine, splitLine] = await lines(w);
  return { w, st, inLine, rentLine, splitLine };
}

const match = (w: BankWorld, lineIds: number[], entryIds: number[]) =>
  w.api.post('/reconciliation/matches', { lineIds, entryIds }, { token: w.token });

describe('manual matches (CONTRACT §14)', () => {
  it('1:1 match: line MATCHED, entry reconciled with a RECONCILED event carrying matchId; GET and DELETE undo it', async () => {
    const { w, inLine } = await worldWithLines();
    const entry = await createEntry(w, { ...eur, entryType: 'INCOME', amountCents: 120_000, entryDate: '2026-01-04' });
    const res = await match(w, [inLine.id], [entry.id]);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      workspaceId: w.workspaceId,
      bankAccountId: w.account.id,
      lineIds: [inLine.id],
      entryIds: [entry.id],
      method: 'MANUAL',
      createdBy: w.userId,
    });
    const after = await getEntry(w, entry.id);
    expect(after).toMatchObject({ isReconciled: true, reconciledBy: w.userId });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({ kind: 'RECONCILED', data: { matchId: res.body.id } });
    expect((await lines(w, { status: 'MATCHED' })).map((l) => [l.id, l.matchId])).toEqual([[inLine.id, res.body.id]]);
    expect((await api.get(`/reconciliation/matches/${res.body.id}`, { token: w.token })).body).toEqual(res.body);

    // a matched entry cannot be unreconciled directly: 409 naming the match, nothing changes
    const refused = await api.patch(`/entries/${entry.id}/reconcile`, { isReconciled: false }, { token: w.token });
    expectErrorBody(refused, 409, 'CONFLICT');
    expect(refused.body.message).toContain(`bank match ${res.body.id}`);
    expect(await getEntry(w, entry.id)).toMatchObject({ isReconciled: true });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({ kind: 'RECONCILED' });

    expect((await api.del(`/reconciliation/matches/${res.body.id}`, { token: w.token })).body).toEqual({ success: true });
    expect(await getEntry(w, entry.id)).toMatchObject({ isReconciled: false, reconciledAt: null, reconciledBy: null });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({ kind: 'UNRECONCILED', data: { matchId: res.body.id } });
    expect((await lines(w, { status: 'UNMATCHED' })).map((l) => l.id)).toContain(inLine.id);
    expectErrorBody(await api.get(`/reconciliation/matches/${res.body.id}`, { token: w.token }), 404, 'NOT_FOUND');
  });

  it('1:N with signed sums; unequal sums, wrong type, other currency, live status, already matched: 409 and nothing changes', async () => {
    const { w, splitLine, rentLine } = await worldWithLines();
    const a = await createEntry(w, { ...eur, amountCents: 10_000, entryDate: '2026-01-02' });
    const b = await createEntry(w, { ...eur, amountCents: 5_000, entryDate: '2026-01-03' });
    const c = await createEntry(w, { ...eur, amountCents: 5_001 });
    const income = await createEntry(w, { ...eur, entryType: 'INCOME', amountCents: 15_000 });
    const usd = await createEntry(w, { baseCurrency: 'USD', amountCents: 15_000 });
    const voided = await createEntry(w, { ...eur, amountCents: 15_000 });
    await setStatus(w, voided.id, 'VOIDED', 'x');
    expectErrorBody(await match(w, [splitLine.id], [a.id, c.id]), 409, 'CONFLICT');
    expectErrorBody(await match(w, [splitLine.id], [income.id]), 409, 'CONFLICT');
    expectErrorBody(await match(w, [splitLine.id], [usd.id]), 409, 'CONFLICT');
    expectErrorBody(await match(w, [splitLine.id], [voided.id]), 409, 'CONFLICT');
    expect(await rowCount('bank_matches', 'bank_account_id = :id', { id: w.account.id })).toBe(0);
    const ok = await match(w, [splitLine.id], [a.id, b.id]);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.entryIds).toEqual([a.id, b.id].sort((x, y) => x - y));
    // CONTRACT §15: each matched entry announces entry.reconciled once (one outbox statement for the whole match)
    const announced = "type = 'entry.reconciled' AND workspace_id = :ws AND (data->'object'->>'id')::bigint IN (:a, :b)";
    expect(await rowCount('webhook_events', announced, { ws: w.workspaceId, a: a.id, b: b.id })).toBe(2);
    expectErrorBody(await match(w, [splitLine.id], [c.id]), 409, 'CONFLICT'); // line already MATCHED
    expectErrorBody(await match(w, [rentLine.id], [a.id]), 409, 'CONFLICT'); // entry already in a match
  });

  it('N:1: two lines against one entry (money in + money out netted)', async () => {
    const { w, inLine, rentLine } = await worldWithLines();
    const net = await createEntry(w, { ...eur, entryType: 'INCOME', amountCents: 90_000 });
    const res = await match(w, [inLine.id, rentLine.id], [net.id]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.lineIds).toEqual([inLine.id, rentLine.id]);
  });

  it('voiding, and correcting, a matched entry dissolves its match in the same transaction', async () => {
    const { w, splitLine, rentLine } = await worldWithLines();
    const a = await createEntry(w, { ...eur, amountCents: 10_000 });
    const b = await createEntry(w, { ...eur, amountCents: 5_000 });
    const m = (await match(w, [splitLine.id], [a.id, b.id])).body;
    const voided = await api.post(`/entries/${a.id}/void`, { reason: 'duplicate' }, { token: w.token });
    expect(voided.status, voided.text).toBe(200);
    // the response is the row after the reactions: the dissolved match left the voided entry unreconciled
    expect(voided.body).toMatchObject({ entryStatus: 'VOIDED', isReconciled: false, reconciledAt: null });
    expect(await getEntry(w, a.id)).toMatchObject({ entryStatus: 'VOIDED', isReconciled: false });
    expect((await events(w, a.id)).map((e) => e.kind).slice(-2)).toEqual(['VOIDED', 'UNRECONCILED']);
    expect(await rowCount('bank_matches', 'id = :id', { id: m.id })).toBe(0);
    expect(await getEntry(w, b.id)).toMatchObject({ isReconciled: false });
    expect((await events(w, b.id)).at(-1)).toMatchObject({ kind: 'UNRECONCILED', data: { matchId: m.id } });
    expect((await lines(w, { status: 'UNMATCHED' })).map((l) => l.id)).toContain(splitLine.id);

    const rent = await createEntry(w, { ...eur, amountCents: 30_000 });
    const m2 = (await match(w, [rentLine.id], [rent.id])).body;
    const corrected = await api.post(`/entries/${rent.id}/correct`, { reason: 'wrong amount', amountCents: 30_001 }, { token: w.token });
    expect(corrected.status, corrected.text).toBe(200);
    expect(await getEntry(w, rent.id)).toMatchObject({ entryStatus: 'VOIDED', isReconciled: false });
    expect(await rowCount('bank_matches', 'id = :id', { id: m2.id })).toBe(0);
    expect(await rowCount('bank_lines', "id = :id AND status = 'UNMATCHED'", { id: rentLine.id })).toBe(1);

    // a void through PATCH /entries/{id}/status answers the row after the reactions too
    const c = await createEntry(w, { ...eur, amountCents: 15_000 });
    const m3 = (await match(w, [splitLine.id], [c.id])).body;
    const viaStatus = await setStatus(w, c.id, 'VOIDED', 'wrong');
    expect(viaStatus.status, viaStatus.text).toBe(200);
    expect(viaStatus.body).toMatchObject({ entryStatus: 'VOIDED', isReconciled: false, reconciledBy: null });
    expect(await rowCount('bank_matches', 'id = :id', { id: m3.id })).toBe(0);
  });

  it('a deactivated account: matches, auto-match and imports are 409', async () => {
    const { w, rentLine } = await worldWithLines();
    const rent = await createEntry(w, { ...eur, amountCents: 30_000 });
    expect((await api.del(`/bank-accounts/${w.account.id}`, { token: w.token })).body).toEqual({ success: true });
    expect((await api.get(`/bank-accounts/${w.account.id}`, { token: w.token })).body.isActive).toBe(false);
    expectErrorBody(await match(w, [rentLine.id], [rent.id]), 409, 'CONFLICT');
    expectErrorBody(await api.post(`/bank-accounts/${w.account.id}/auto-match`, {}, { token: w.token }), 409, 'CONFLICT');
    expectErrorBody(await importFile(w, w.account.id, camt053([])), 409, 'CONFLICT');
  });
});

describe('auto-match (CONTRACT §14)', () => {
  it('matches only unambiguous lines both ways; after import when autoMatch is on', async () => {
    const w = await bankWorld(api, { autoMatch: true, dateToleranceDays: 3 });
    const unique = await createEntry(w, { ...eur, entryType: 'INCOME', amountCents: 120_000, entryDate: '2026-01-04' });
    // two entries of one amount for one line: ambiguous
    await createEntry(w, { ...eur, amountCents: 30_000, entryDate: '2026-01-06' });
    await createEntry(w, { ...eur, amountCents: 30_000, entryDate: '2026-01-08' });
    // one entry, two lines of its amount: ambiguous the other way
    await createEntry(w, { ...eur, amountCents: 2_000, entryDate: '2026-01-10' });
    // outside the date window
    await createEntry(w, { ...eur, amountCents: 7_700, entryDate: '2026-01-01' });
    const st = await imported(
      w,
      camt053([
        { date: '2026-01-05', amount: '1200.00', id: 'A1' },
        { date: '2026-01-07', amount: '-300.00', id: 'A2' },
        { date: '2026-01-10', amount: '-20.00', id: 'A3' },
        { date: '2026-01-11', amount: '-20.00', id: 'A4' },
        { date: '2026-01-09', amount: '-77.00', id: 'A5' },
      ]),
    );
    expect(st.autoMatchedCount).toBe(1);
    const matched = await lines(w, { status: 'MATCHED' });
    expect(matched.map((l) => l.externalId)).toEqual(['A1']);
    const m = (await api.get(`/reconciliation/matches/${matched[0].matchId}`, { token: w.token })).body;
    expect(m).toMatchObject({ method: 'AUTO', createdBy: null, entryIds: [unique.id] });
    expect((await events(w, unique.id)).at(-1)).toMatchObject({ kind: 'RECONCILED', actorType: 'SYSTEM', data: { matchId: m.id } });
    // nothing more is unambiguous
    expect((await api.post(`/bank-accounts/${w.account.id}/auto-match`, {}, { token: w.token })).body).toEqual({ matched: 0 });
  });

  it('POST auto-match works whatever the flag says', async () => {
    const { w } = await worldWithLines({ autoMatch: false });
    await createEntry(w, { ...eur, amountCents: 30_000, entryDate: '2026-01-06' });
    expect((await api.post(`/bank-accounts/${w.account.id}/auto-match`, {}, { token: w.token })).body).toEqual({ matched: 1 });
  });
});

describe('suggestions (CONTRACT §14)', () => {
  it('singles of the exact amount and groups adding up; reference beats date; closer date beats farther', async () => {
    const w = await bankWorld(api);
    await imported(w, camt53one());
    const [line] = await lines(w);
    const far = await createEntry(w, { ...eur, amountCents: 15_000, entryDate: '2026-01-12', reference: 'X-1', description: 'Other' });
    const near = await createEntry(w, { ...eur, amountCents: 15_000, entryDate: '2026-01-09', reference: 'X-2', description: 'Other' });
    const withRef = await createEntry(w, {
      ...eur,
      amountCents: 15_000,
      entryDate: '2026-01-13',
      reference: 'INV-2024-0042',
      description: 'Paper',
    });
    const g1 = await createEntry(w, { ...eur, amountCents: 10_000, entryDate: '2026-01-08' });
    const g2 = await createEntry(w, { ...eur, amountCents: 5_000, entryDate: '2026-01-08' });
    await createEntry(w, { ...eur, entryType: 'INCOME', amountCents: 15_000, entryDate: '2026-01-08' }); // wrong type
    await createEntry(w, { ...eur, amountCents: 15_000, entryDate: '2026-01-30' }); // outside the window
    const res = await api.get(`/bank-lines/${line.id}/suggestions`, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((s: any) => s.entryIds)).toEqual([[withRef.id], [near.id], [far.id], [g1.id, g2.id].sort((a, b) => a - b)]);
    expect(res.body[0].reasons).toMatchObject({ amount: 1, reference: 1 });
    expect(res.body[3]).toMatchObject({ amountCents: 15_000 });
    for (const s of res.body) for (const v of [s.score, ...Object.values(s.reasons)]) expect(v).toBeGreaterThanOrEqual(0);
  });
});

function camt53one() {
  return camt053([{ date: '2026-01-08', amount: '-150.00', name: 'PAPER WORLD', memo: 'SEPA-UEBERWEISUNG INV 2024/0042 paper', id: 'S1' }]);
}

describe('entry from a line, ignore, lines list, status', () => {
  it('create-entry: INCOME from the counterparty party (by name) to the account party, matched; closed period 409', async () => {
    const { w, inLine, rentLine } = await worldWithLines();
    const res = await api.post(`/bank-lines/${inLine.id}/create-entry`, {}, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entry).toMatchObject({
      entryType: 'INCOME',
      amountCents: 120_000,
      baseCurrency: 'EUR',
      entryDate: '2026-01-05',
      description: 'Invoice INV-1001',
      fromPartyId: w.parties[0],
      toPartyId: w.account.partyId, // 'Acme Ltd' is the counterparty's name
      entrySourceId: w.account.entrySourceId,
      projectId: w.account.projectId,
      isReconciled: true,
    });
    expect(res.body.match).toMatchObject({ lineIds: [inLine.id], entryIds: [res.body.entry.id], method: 'MANUAL' });
    expectErrorBody(await api.post(`/bank-lines/${inLine.id}/create-entry`, {}, { token: w.token }), 409, 'CONFLICT');
    await closePeriod(api, w.token, w.workspaceId, '2026-01-01', '2026-01-31');
    expectErrorBody(await api.post(`/bank-lines/${rentLine.id}/create-entry`, {}, { token: w.token }), 409, 'CONFLICT');
  });

  it('create-entry uses the party whose name equals the counterparty, ignoring case; EXPENSE goes to it', async () => {
    const { w, rentLine } = await worldWithLines();
    const landlord = await api.post(
      '/parties',
      { workspaceId: w.workspaceId, name: 'LANDLORD', partyType: 'ORGANIZATION' },
      { token: w.token },
    );
    const res = await api.post(`/bank-lines/${rentLine.id}/create-entry`, { description: 'Rent Jan' }, { token: w.token });
    expect(res.body.entry).toMatchObject({
      entryType: 'EXPENSE',
      amountCents: 30_000,
      fromPartyId: w.account.partyId,
      toPartyId: landlord.body.id,
      description: 'Rent Jan',
    });
  });

  it('ignore needs a reason; UNMATCHED ↔ IGNORED, else 409; list filters and order', async () => {
    const { w, inLine, rentLine, splitLine } = await worldWithLines();
    expectErrorBody(await api.post(`/bank-lines/${rentLine.id}/ignore`, {}, { token: w.token }), 400, 'BAD_REQUEST');
    const ignored = await api.post(`/bank-lines/${rentLine.id}/ignore`, { reason: 'internal transfer' }, { token: w.token });
    expect(ignored.body).toMatchObject({ status: 'IGNORED', ignoredReason: 'internal transfer' });
    expectErrorBody(await api.post(`/bank-lines/${rentLine.id}/ignore`, { reason: 'again' }, { token: w.token }), 409, 'CONFLICT');
    expectErrorBody(await api.post(`/bank-lines/${inLine.id}/unignore`, {}, { token: w.token }), 409, 'CONFLICT');
    expect((await lines(w, { status: 'IGNORED' })).map((l) => l.id)).toEqual([rentLine.id]);
    expect((await lines(w, { fromDate: '2026-01-06', toDate: '2026-01-08' })).map((l) => l.id)).toEqual([rentLine.id, splitLine.id]);
    expect((await lines(w, { search: 'inv-1001' })).map((l) => l.id)).toEqual([inLine.id]);
    expect((await lines(w, { search: 'acme' })).map((l) => l.id)).toEqual([inLine.id]);
    const page = await api.get(`/bank-accounts/${w.account.id}/lines`, { token: w.token, query: { limit: 2, offset: 1 } });
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.body.items.map((l: any) => l.id)).toEqual([rentLine.id, splitLine.id]);
    expectErrorBody(await api.get(`/bank-accounts/${w.account.id}/lines`, { token: w.token, query: { limit: 101 } }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await api.get(`/bank-accounts/${w.account.id}/lines`, { token: w.token, query: { fromDate: '2026-02-01', toDate: '2026-01-01' } }),
      400,
      'BAD_REQUEST',
    );
    expect((await api.post(`/bank-lines/${rentLine.id}/unignore`, {}, { token: w.token })).body).toMatchObject({
      status: 'UNMATCHED',
      ignoredReason: null,
    });
  });

  it('reconciliation status as of a date', async () => {
    const { w, st, inLine, rentLine } = await worldWithLines({ openingBalanceCents: 5_000 });
    const entry = await createEntry(w, { ...eur, entryType: 'INCOME', amountCents: 120_000, entryDate: '2026-01-05' });
    await match(w, [inLine.id], [entry.id]);
    await api.post(`/bank-lines/${rentLine.id}/ignore`, { reason: 'x' }, { token: w.token });
    const res = await api.get(`/bank-accounts/${w.account.id}/reconciliation`, { token: w.token, query: { asOf: '2026-01-07' } });
    expect(res.body).toEqual({
      bankAccountId: w.account.id,
      asOf: '2026-01-07',
      openingBalanceCents: 5_000,
      statementBalanceCents: 5_000 + 120_000 - 30_000,
      matched: { count: 1, amountCents: 120_000 },
      unmatched: { count: 0, amountCents: 0 },
      ignored: { count: 1, amountCents: -30_000 },
      lastStatement: { id: st.id, closingBalanceCents: null, computedBalanceCents: null, agrees: null },
    });
  });
});
