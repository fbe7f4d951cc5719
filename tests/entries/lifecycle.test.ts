import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { db, transaction } from '../../server/db/database.js';
import { clock } from '../../server/lib/clock.js';
import { PERMISSIONS, type Permission } from '../../shared/permissions.js';
import {
  actor,
  closePeriod,
  createEntry,
  makeTag,
  entryIn,
  entryWorld,
  fxWorld,
  putRate,
  type EntryWorld,
} from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import {
  ENTRY_KEYS,
  events,
  expectOk,
  expectUnchanged,
  getEntry,
  ISO_TIMESTAMP,
  related,
  setStatus,
  snapshot,
} from '../support/entries.js';

let api: Api;
let w: EntryWorld;

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});
afterEach(() => clock.reset());

const post = (world: EntryWorld, path: string, body: unknown) => world.api.post(path, body, { token: world.token });
const patch = (world: EntryWorld, path: string, body: unknown) => world.api.patch(path, body, { token: world.token });
const lastEvent = async (world: EntryWorld, id: number) => (await events(world, id)).at(-1);

// ---------------------------------------------------------------------------------------------
// 1. The status table of CONTRACT §5, cell by cell.
// ---------------------------------------------------------------------------------------------

const STATUSES = ['PENDING', 'UNDER_REVIEW', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED'] as const;
type Status = (typeof STATUSES)[number];
const REASON_REQUIRED: readonly Status[] = ['REJECTED', 'CANCELLED', 'VOIDED'];

/**
 * CONTRACT §5 verbatim: rows are `from`, columns are `to` in the order of STATUSES.
 * 'yes' allowed, 'yes*' allowed with a reason, '' (and the diagonal '–') → 409.
 */
// prettier-ignore
const TABLE: Record<Status, readonly string[]> = {
  //              PENDING  UNDER_REVIEW  COMPLETED  REJECTED  CANCELLED  VOIDED
  PENDING:      [ '–',     'yes',        'yes',     'yes*',   'yes*',    'yes*' ],
  UNDER_REVIEW: [ 'yes',   '–',          'yes',     'yes*',   'yes*',    'yes*' ],
  COMPLETED:    [ '',      '',           '–',       '',       '',        'yes*' ],
  REJECTED:     [ 'yes',   '',           '',        '–',      '',        'yes*' ],
  CANCELLED:    [ '',      '',           '',        '',       '–',       ''     ],
  VOIDED:       [ '',      '',           '',        '',       '',        '–'    ],
};

const CELLS = STATUSES.flatMap((from) =>
  STATUSES.map((to, i) => ({ from, to, allowed: TABLE[from][i].startsWith('yes'), starred: TABLE[from][i] === 'yes*' })),
);

describe('PATCH /entries/{id}/status: the CONTRACT §5 table', () => {
  it('the table in this test is the contract table (36 cells, 13 allowed, reasons on exactly the REJECTED/CANCELLED/VOIDED columns)', () => {
    expect(CELLS).toHaveLength(36);
    expect(CELLS.filter((c) => c.allowed)).toHaveLength(13);
    for (const c of CELLS.filter((c) => c.allowed)) expect(c.starred).toBe(REASON_REQUIRED.includes(c.to));
  });

  it.each(CELLS)('$from → $to (allowed: $allowed)', async ({ from, to, allowed }) => {
    const entry = await entryIn(w, from);
    const before = await snapshot(w, entry.id);

    if (REASON_REQUIRED.includes(to)) {
      // a missing or blank reason is visible from the request alone: 400, whatever the from-state
      expectErrorBody(await setStatus(w, entry.id, to), 400, 'BAD_REQUEST');
      expectErrorBody(await setStatus(w, entry.id, to, '   '), 400, 'BAD_REQUEST');
      await expectUnchanged(w, entry.id, before);
    }

    const reason = `moving ${from} to ${to}`;
    const res = await setStatus(w, entry.id, to, reason);
    if (!allowed) {
      expectErrorBody(res, 409, 'CONFLICT');
      await expectUnchanged(w, entry.id, before);
      return;
    }
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ENTRY_KEYS);
    expect(res.body).toMatchObject({ id: entry.id, entryStatus: to, statusReason: reason, amountCents: entry.amountCents });
    expect(await getEntry(w, entry.id)).toMatchObject({ entryStatus: to, statusReason: reason });
    const evs = await events(w, entry.id);
    expect(evs).toHaveLength(before.eventCount + 1);
    expect(evs.at(-1)).toMatchObject({ entryId: entry.id, kind: 'STATUS_CHANGED', actorType: 'USER', actorId: w.userId });
    expect(evs.at(-1).data).toEqual({ from, to, reason });
  });

  it.each([
    ['PENDING', 'UNDER_REVIEW'],
    ['PENDING', 'COMPLETED'],
    ['UNDER_REVIEW', 'PENDING'],
    ['REJECTED', 'PENDING'],
  ] as const)('%s → %s needs no reason', async (from, to) => {
    const entry = await entryIn(w, from);
    const res = await setStatus(w, entry.id, to);
    expect(res.status).toBe(200);
    expect(res.body.entryStatus).toBe(to);
    expect(await lastEvent(w, entry.id)).toMatchObject({ kind: 'STATUS_CHANGED', data: { from, to } });
  });

  it('refuses an unknown status value and unknown fields with 400', async () => {
    const entry = await createEntry(w);
    expectErrorBody(await setStatus(w, entry.id, 'ARCHIVED', 'x'), 400, 'BAD_REQUEST');
    expectErrorBody(await patch(w, `/entries/${entry.id}/status`, { status: 'COMPLETED', note: 'x' }), 400, 'BAD_REQUEST');
    expect((await getEntry(w, entry.id)).entryStatus).toBe('PENDING');
  });
});

// ---------------------------------------------------------------------------------------------
// 2. Void
// ---------------------------------------------------------------------------------------------

describe('POST /entries/{id}/void', () => {
  it('requires a reason (400) and changes nothing without one', async () => {
    const entry = await createEntry(w);
    const before = await snapshot(w, entry.id);
    expectErrorBody(await post(w, `/entries/${entry.id}/void`, {}), 400, 'BAD_REQUEST');
    expectErrorBody(await post(w, `/entries/${entry.id}/void`, { reason: '' }), 400, 'BAD_REQUEST');
    expectErrorBody(await post(w, `/entries/${entry.id}/void`, { reason: '  ' }), 400, 'BAD_REQUEST');
    expectErrorBody(await post(w, `/entries/${entry.id}/void`, { reason: 'ok', force: true }), 400, 'BAD_REQUEST');
    await expectUnchanged(w, entry.id, before);
  });

  it.each(['PENDING', 'UNDER_REVIEW', 'COMPLETED', 'REJECTED'])('voids a %s entry, keeps the reason and records VOIDED', async (from) => {
    const entry = await entryIn(w, from);
    const res = await post(w, `/entries/${entry.id}/void`, { reason: 'Duplicate invoice' });
    expectOk(res);
    expect(Object.keys(res.body).sort()).toEqual(ENTRY_KEYS);
    expect(res.body).toMatchObject({ id: entry.id, entryStatus: 'VOIDED', statusReason: 'Duplicate invoice' });
    expect(await getEntry(w, entry.id)).toMatchObject({ entryStatus: 'VOIDED', statusReason: 'Duplicate invoice' });
    expect(await lastEvent(w, entry.id)).toMatchObject({ kind: 'VOIDED', actorType: 'USER', actorId: w.userId });
  });

  it.each(['VOIDED', 'CANCELLED'])('answers 409 for an entry already %s', async (from) => {
    const entry = await entryIn(w, from);
    const before = await snapshot(w, entry.id);
    expectErrorBody(await post(w, `/entries/${entry.id}/void`, { reason: 'again' }), 409, 'CONFLICT');
    await expectUnchanged(w, entry.id, before);
  });

  it('answers 409 for an entry dated in a closed period', async () => {
    const world = await entryWorld(api);
    const entry = await createEntry(world, { entryDate: '2025-02-10' });
    await closePeriod(api, world.token, world.workspaceId, '2025-02-01', '2025-02-28');
    const before = await snapshot(world, entry.id);
    expectErrorBody(await post(world, `/entries/${entry.id}/void`, { reason: 'late' }), 409, 'CONFLICT');
    await expectUnchanged(world, entry.id, before);
  });
});

// ---------------------------------------------------------------------------------------------
// 3. Refund
// ---------------------------------------------------------------------------------------------

describe('POST /entries/{id}/refund', () => {
  it('creates the opposite entry with swapped parties, same project and currency, PENDING, linked REFUND', async () => {
    const original = await createEntry(w, { entryType: 'EXPENSE', amountCents: 10_000, baseCurrency: 'EUR', entryDate: '2026-01-10' });
    const res = await post(w, `/entries/${original.id}/refund`, {
      amountCents: 3_000,
      entryDate: '2026-01-20',
      description: 'Partial refund',
    });
    expectOk(res);
    const refund = res.body;
    expect(Object.keys(refund).sort()).toEqual(ENTRY_KEYS);
    expect(refund.id).not.toBe(original.id);
    expect(refund).toMatchObject({
      workspaceId: w.workspaceId,
      projectId: original.projectId,
      entryType: 'INCOME',
      entryStatus: 'PENDING',
      baseCurrency: 'EUR',
      amountCents: 3_000,
      fromPartyId: original.toPartyId,
      toPartyId: original.fromPartyId,
      entryDate: '2026-01-20',
      description: 'Partial refund',
      createdBy: w.userId,
    });
    expect(await getEntry(w, refund.id)).toMatchObject({ entryType: 'INCOME', amountCents: 3_000, entryStatus: 'PENDING' });

    // a partial refund leaves the original as it was
    expect(await getEntry(w, original.id)).toMatchObject({ entryStatus: 'PENDING', statusReason: null, amountCents: 10_000 });

    const fromOriginal = await related(w, original.id);
    expect(fromOriginal).toHaveLength(1);
    expect(fromOriginal[0]).toMatchObject({ linkType: 'REFUND', role: 'DERIVED', entry: { id: refund.id, amountCents: 3_000 } });
    const fromRefund = await related(w, refund.id);
    expect(fromRefund).toHaveLength(1);
    expect(fromRefund[0]).toMatchObject({ linkType: 'REFUND', role: 'ORIGINAL', entry: { id: original.id } });

    expect((await events(w, original.id)).map((e) => e.kind)).toEqual(['ENTRY_CREATED', 'REFUND_CREATED']);
    expect((await events(w, refund.id)).map((e) => e.kind)).toEqual(['ENTRY_CREATED']);
  });

  it('refunds an INCOME entry with an EXPENSE entry', async () => {
    const original = await createEntry(w, { entryType: 'INCOME', amountCents: 500 });
    const res = await post(w, `/entries/${original.id}/refund`, { amountCents: 200, entryDate: '2026-01-16' });
    expectOk(res);
    expect(res.body).toMatchObject({ entryType: 'EXPENSE', fromPartyId: original.toPartyId, toPartyId: original.fromPartyId });
  });

  it('dates the refund today (UTC) when no entryDate is given', async () => {
    clock.set(() => new Date('2030-06-15T23:59:30.000Z'));
    const world = await entryWorld(api); // log in under the set clock
    const original = await createEntry(world, { entryDate: '2030-06-01' });
    const res = await post(world, `/entries/${original.id}/refund`, { amountCents: 100 });
    expectOk(res);
    expect(res.body.entryDate).toBe('2030-06-15');
  });

  it('refuses amountCents <= 0, missing, not an integer, or unknown fields with 400', async () => {
    const original = await createEntry(w);
    const before = await snapshot(w, original.id);
    for (const body of [{ amountCents: 0 }, { amountCents: -100 }, { amountCents: 1.5 }, {}, { amountCents: 100, entryType: 'INCOME' }]) {
      expectErrorBody(await post(w, `/entries/${original.id}/refund`, body), 400, 'BAD_REQUEST');
    }
    await expectUnchanged(w, original.id, before);
  });

  it('a refund or reimbursement far above the amount is the cap’s 409, not a 400 for a base value that cannot be stored', async () => {
    const fx = await fxWorld(api, 'USD');
    await putRate(fx, 'EUR', '2026-01-10', '1.0842');
    const original = await createEntry(fx, { baseCurrency: 'EUR', entryDate: '2026-01-10', amountCents: 400_000 });
    expect(original.amountBaseCents).toBe(433_680);
    const before = await snapshot(fx, original.id);
    // valued at 1.0842, 999,999,999,999,999 is above the largest base amount an entry can hold
    const huge = { amountCents: 999_999_999_999_999, entryDate: '2026-01-10' };
    const refund = await post(fx, `/entries/${original.id}/refund`, huge);
    expectErrorBody(refund, 409, 'CONFLICT');
    expect(refund.body.message).toBe(`The live refunds of entry #${original.id} would come to 999999999999999, above its amount 400000`);
    expectOk(await post(fx, `/entries/${original.id}/refund`, { amountCents: 100_000, entryDate: '2026-01-10' }));
    const second = await post(fx, `/entries/${original.id}/refund`, huge);
    expectErrorBody(second, 409, 'CONFLICT');
    expect(second.body.message).toBe(`The live refunds of entry #${original.id} would come to 1000000000099999, above its amount 400000`);
    const reimbursement = await post(fx, `/entries/${original.id}/reimburse`, {
      ...huge,
      fromPartyId: fx.parties[0],
      toPartyId: fx.parties[1],
    });
    expectErrorBody(reimbursement, 409, 'CONFLICT');
    expect(reimbursement.body.message).toBe(
      `The live reimbursements of entry #${original.id} would come to 999999999999999, above its amount 400000`,
    );
    // only the one refund that fits was written
    expect((await snapshot(fx, original.id)).related).toHaveLength(before.related.length + 1);
  });

  it('refuses more than what remains (409), counting earlier non-voided refunds; a voided refund frees its amount', async () => {
    const original = await createEntry(w, { amountCents: 10_000 });
    expectErrorBody(await post(w, `/entries/${original.id}/refund`, { amountCents: 10_001, entryDate: '2026-01-20' }), 409, 'CONFLICT');
    const r1 = await post(w, `/entries/${original.id}/refund`, { amountCents: 3_000, entryDate: '2026-01-20' });
    expectOk(r1);
    const r2 = await post(w, `/entries/${original.id}/refund`, { amountCents: 2_000, entryDate: '2026-01-20' });
    expectOk(r2);
    // 5_000 remain
    const before = await snapshot(w, original.id);
    expectErrorBody(await post(w, `/entries/${original.id}/refund`, { amountCents: 5_001, entryDate: '2026-01-20' }), 409, 'CONFLICT');
    await expectUnchanged(w, original.id, before);

    // voiding the 3_000 refund frees it: 8_000 remain, and 8_000 is now a full refund
    expectOk(await post(w, `/entries/${r1.body.id}/void`, { reason: 'refund reversed' }));
    expectErrorBody(await post(w, `/entries/${original.id}/refund`, { amountCents: 8_001, entryDate: '2026-01-20' }), 409, 'CONFLICT');
    expect((await getEntry(w, original.id)).entryStatus).toBe('PENDING');
    const r3 = await post(w, `/entries/${original.id}/refund`, { amountCents: 8_000, entryDate: '2026-01-20' });
    expectOk(r3);
    expect(await getEntry(w, original.id)).toMatchObject({ entryStatus: 'VOIDED', statusReason: 'Fully refunded' });
    expect((await related(w, original.id)).map((r) => r.entry.id).sort((a, b) => a - b)).toEqual(
      [r1.body.id, r2.body.id, r3.body.id].sort((a, b) => a - b),
    );
  });

  it.each(['PENDING', 'UNDER_REVIEW', 'COMPLETED'])(
    'a refund of the whole amount voids a %s original with statusReason "Fully refunded" in the same call',
    async (from) => {
      const original = await entryIn(w, from, { amountCents: 7_500 });
      const res = await post(w, `/entries/${original.id}/refund`, { amountCents: 7_500, entryDate: '2026-01-20' });
      expectOk(res);
      expect(res.body).toMatchObject({ entryStatus: 'PENDING', amountCents: 7_500 });
      expect(await getEntry(w, original.id)).toMatchObject({ entryStatus: 'VOIDED', statusReason: 'Fully refunded' });
      const kinds = (await events(w, original.id)).map((e) => e.kind);
      expect(kinds.slice(-2)).toEqual(['REFUND_CREATED', 'VOIDED']);
      // and nothing more can be refunded
      expectErrorBody(await post(w, `/entries/${original.id}/refund`, { amountCents: 1, entryDate: '2026-01-20' }), 409, 'CONFLICT');
    },
  );

  it('several partial refunds that reach the amount void the original', async () => {
    const original = await createEntry(w, { amountCents: 900 });
    expectOk(await post(w, `/entries/${original.id}/refund`, { amountCents: 400, entryDate: '2026-01-20' }));
    expect((await getEntry(w, original.id)).entryStatus).toBe('PENDING');
    expectOk(await post(w, `/entries/${original.id}/refund`, { amountCents: 500, entryDate: '2026-01-21' }));
    expect(await getEntry(w, original.id)).toMatchObject({ entryStatus: 'VOIDED', statusReason: 'Fully refunded' });
  });

  it.each(['VOIDED', 'REJECTED', 'CANCELLED'])('answers 409 for a %s original', async (from) => {
    const original = await entryIn(w, from);
    const before = await snapshot(w, original.id);
    expectErrorBody(await post(w, `/entries/${original.id}/refund`, { amountCents: 100, entryDate: '2026-01-20' }), 409, 'CONFLICT');
    await expectUnchanged(w, original.id, before);
  });

  it('answers 409 when the refund date is in a closed period', async () => {
    const world = await entryWorld(api);
    const original = await createEntry(world, { entryDate: '2025-05-10' });
    await closePeriod(api, world.token, world.workspaceId, '2025-06-01', '2025-06-30');
    const before = await snapshot(world, original.id);
    expectErrorBody(await post(world, `/entries/${original.id}/refund`, { amountCents: 100, entryDate: '2025-06-15' }), 409, 'CONFLICT');
    await expectUnchanged(world, original.id, before);
    // the date the client would get by default (today) in a closed period is refused too
    clock.set(() => new Date('2025-06-20T12:00:00.000Z'));
    const late = await actor(api, { workspaceId: world.workspaceId });
    expectErrorBody(await api.post(`/entries/${original.id}/refund`, { amountCents: 100 }, { token: late.token }), 409, 'CONFLICT');
    clock.reset();
    await expectUnchanged(world, original.id, before);
  });

  it('a full refund of an original dated in a closed period is created, but the original is not voided', async () => {
    const world = await entryWorld(api);
    const original = await createEntry(world, { entryDate: '2025-03-15', amountCents: 4_000 });
    await closePeriod(api, world.token, world.workspaceId, '2025-03-01', '2025-03-31');
    const res = await post(world, `/entries/${original.id}/refund`, { amountCents: 4_000, entryDate: '2025-04-02' });
    expectOk(res);
    expect(res.body).toMatchObject({ amountCents: 4_000, entryDate: '2025-04-02', entryStatus: 'PENDING' });
    expect(await getEntry(world, original.id)).toMatchObject({ entryStatus: 'PENDING', statusReason: null });
    expect((await events(world, original.id)).map((e) => e.kind)).toEqual(['ENTRY_CREATED', 'REFUND_CREATED']);
    expect(await related(world, original.id)).toHaveLength(1);
    // the refund used the whole amount: nothing more can be refunded
    expectErrorBody(await post(world, `/entries/${original.id}/refund`, { amountCents: 1, entryDate: '2025-04-02' }), 409, 'CONFLICT');
  });
});

// ---------------------------------------------------------------------------------------------
// 4. Reimburse
// ---------------------------------------------------------------------------------------------

describe('POST /entries/{id}/reimburse', () => {
  const body = (extra: Record<string, unknown> = {}) => ({
    amountCents: 2_000,
    fromPartyId: w.parties[2],
    toPartyId: w.parties[3],
    entryDate: '2026-01-25',
    ...extra,
  });

  it('creates a PENDING INCOME entry with the given parties, same project and currency, linked REIMBURSEMENT', async () => {
    const original = await createEntry(w, { entryType: 'EXPENSE', amountCents: 5_000, baseCurrency: 'GBP' });
    const res = await post(w, `/entries/${original.id}/reimburse`, body({ description: 'Travel paid back' }));
    expectOk(res);
    expect(Object.keys(res.body).sort()).toEqual(ENTRY_KEYS);
    expect(res.body).toMatchObject({
      entryType: 'INCOME',
      entryStatus: 'PENDING',
      projectId: original.projectId,
      workspaceId: w.workspaceId,
      baseCurrency: 'GBP',
      amountCents: 2_000,
      fromPartyId: w.parties[2],
      toPartyId: w.parties[3],
      entryDate: '2026-01-25',
      description: 'Travel paid back',
    });
    expect(res.body.id).not.toBe(original.id);
    expect(await getEntry(w, original.id)).toMatchObject({ entryStatus: 'PENDING', amountCents: 5_000, statusReason: null });
    expect(await related(w, original.id)).toEqual([
      expect.objectContaining({ linkType: 'REIMBURSEMENT', role: 'DERIVED', entry: expect.objectContaining({ id: res.body.id }) }),
    ]);
    expect(await related(w, res.body.id)).toEqual([
      expect.objectContaining({ linkType: 'REIMBURSEMENT', role: 'ORIGINAL', entry: expect.objectContaining({ id: original.id }) }),
    ]);
    expect((await events(w, original.id)).map((e) => e.kind)).toEqual(['ENTRY_CREATED', 'REIMBURSEMENT_CREATED']);
  });

  it('takes an explicit entryType', async () => {
    const original = await createEntry(w, { entryType: 'EXPENSE' });
    const res = await post(w, `/entries/${original.id}/reimburse`, body({ entryType: 'EXPENSE' }));
    expectOk(res);
    expect(res.body.entryType).toBe('EXPENSE');
  });

  it('refuses an INCOME original with 409', async () => {
    const original = await createEntry(w, { entryType: 'INCOME' });
    const before = await snapshot(w, original.id);
    expectErrorBody(await post(w, `/entries/${original.id}/reimburse`, body()), 409, 'CONFLICT');
    await expectUnchanged(w, original.id, before);
  });

  it('never reimburses more than the original amount in total (409); the original stays unchanged', async () => {
    const original = await createEntry(w, { entryType: 'EXPENSE', amountCents: 5_000 });
    expectErrorBody(await post(w, `/entries/${original.id}/reimburse`, body({ amountCents: 5_001 })), 409, 'CONFLICT');
    expectOk(await post(w, `/entries/${original.id}/reimburse`, body({ amountCents: 2_000 })));
    expectErrorBody(await post(w, `/entries/${original.id}/reimburse`, body({ amountCents: 3_001 })), 409, 'CONFLICT');
    expectOk(await post(w, `/entries/${original.id}/reimburse`, body({ amountCents: 3_000 })));
    expectErrorBody(await post(w, `/entries/${original.id}/reimburse`, body({ amountCents: 1 })), 409, 'CONFLICT');
    expect(await getEntry(w, original.id)).toMatchObject({ entryStatus: 'PENDING', statusReason: null });
    expect(await related(w, original.id)).toHaveLength(2);
  });

  it('refuses amountCents <= 0 and missing parties with 400', async () => {
    const original = await createEntry(w, { entryType: 'EXPENSE' });
    const before = await snapshot(w, original.id);
    expectErrorBody(await post(w, `/entries/${original.id}/reimburse`, body({ amountCents: 0 })), 400, 'BAD_REQUEST');
    expectErrorBody(await post(w, `/entries/${original.id}/reimburse`, body({ amountCents: -5 })), 400, 'BAD_REQUEST');
    expectErrorBody(await post(w, `/entries/${original.id}/reimburse`, { amountCents: 100, entryDate: '2026-01-25' }), 400, 'BAD_REQUEST');
    await expectUnchanged(w, original.id, before);
  });

  it('refuses parties of another workspace with 400', async () => {
    const other = await entryWorld(api);
    const original = await createEntry(w, { entryType: 'EXPENSE' });
    const before = await snapshot(w, original.id);
    expectErrorBody(await post(w, `/entries/${original.id}/reimburse`, body({ fromPartyId: other.parties[0] })), 400, 'BAD_REQUEST');
    await expectUnchanged(w, original.id, before);
  });

  it('answers 409 when its date is in a closed period', async () => {
    const world = await entryWorld(api);
    const original = await createEntry(world, { entryType: 'EXPENSE', entryDate: '2025-07-01' });
    await closePeriod(api, world.token, world.workspaceId, '2025-08-01', '2025-08-31');
    const before = await snapshot(world, original.id);
    const res = await post(world, `/entries/${original.id}/reimburse`, {
      amountCents: 100,
      fromPartyId: world.parties[2],
      toPartyId: world.parties[3],
      entryDate: '2025-08-31',
    });
    expectErrorBody(res, 409, 'CONFLICT');
    await expectUnchanged(world, original.id, before);
  });
});

// ---------------------------------------------------------------------------------------------
// 5. Correct
// ---------------------------------------------------------------------------------------------

describe('POST /entries/{id}/correct', () => {
  it('voids the original with the reason and returns a new PENDING entry with the overrides and the tags, linked CORRECTION', async () => {
    const t1 = { id: await makeTag(api, w.token, w.workspaceId, 'correct-a') };
    const t2 = { id: await makeTag(api, w.token, w.workspaceId, 'correct-b') };
    const original = await createEntry(w, { amountCents: 1_000, description: 'old', reference: 'R-1', tagIds: [t1.id, t2.id] });
    const res = await post(w, `/entries/${original.id}/correct`, {
      reason: 'Wrong amount on the invoice',
      amountCents: 1_200,
      description: 'new',
      toPartyId: w.parties[2],
    });
    expectOk(res);
    const replacement = res.body;
    expect(Object.keys(replacement).sort()).toEqual(ENTRY_KEYS);
    expect(replacement.id).not.toBe(original.id);
    expect(replacement).toMatchObject({
      entryStatus: 'PENDING',
      statusReason: null,
      entryType: original.entryType,
      projectId: original.projectId,
      baseCurrency: original.baseCurrency,
      amountCents: 1_200,
      description: 'new',
      reference: 'R-1',
      entryDate: original.entryDate,
      fromPartyId: original.fromPartyId,
      toPartyId: w.parties[2],
    });
    const detail = await getEntry(w, replacement.id);
    expect(detail.tags.map((t: { id: number }) => t.id).sort((a: number, b: number) => a - b)).toEqual(
      [t1.id, t2.id].sort((a, b) => a - b),
    );

    expect(await getEntry(w, original.id)).toMatchObject({
      entryStatus: 'VOIDED',
      statusReason: 'Wrong amount on the invoice',
      amountCents: 1_000,
    });
    expect(await related(w, original.id)).toEqual([
      expect.objectContaining({ linkType: 'CORRECTION', role: 'DERIVED', entry: expect.objectContaining({ id: replacement.id }) }),
    ]);
    expect(await related(w, replacement.id)).toEqual([
      expect.objectContaining({ linkType: 'CORRECTION', role: 'ORIGINAL', entry: expect.objectContaining({ id: original.id }) }),
    ]);
    const kinds = (await events(w, original.id)).map((e) => e.kind);
    expect(kinds).toContain('VOIDED');
    expect(kinds).toContain('CORRECTION_CREATED');
  });

  it.each(['UNDER_REVIEW', 'COMPLETED', 'REJECTED'])('corrects a %s entry', async (from) => {
    const original = await entryIn(w, from);
    const res = await post(w, `/entries/${original.id}/correct`, { reason: 'fix', entryDate: '2026-01-31' });
    expectOk(res);
    expect(res.body).toMatchObject({ entryStatus: 'PENDING', entryDate: '2026-01-31', amountCents: original.amountCents });
    expect(await getEntry(w, original.id)).toMatchObject({ entryStatus: 'VOIDED', statusReason: 'fix' });
  });

  it.each(['VOIDED', 'CANCELLED'])('answers 409 for a %s original', async (from) => {
    const original = await entryIn(w, from);
    const before = await snapshot(w, original.id);
    expectErrorBody(await post(w, `/entries/${original.id}/correct`, { reason: 'fix', amountCents: 1 }), 409, 'CONFLICT');
    await expectUnchanged(w, original.id, before);
  });

  it('requires a reason (400)', async () => {
    const original = await createEntry(w);
    const before = await snapshot(w, original.id);
    expectErrorBody(await post(w, `/entries/${original.id}/correct`, { amountCents: 5 }), 400, 'BAD_REQUEST');
    expectErrorBody(await post(w, `/entries/${original.id}/correct`, { reason: ' ', amountCents: 5 }), 400, 'BAD_REQUEST');
    expectErrorBody(await post(w, `/entries/${original.id}/correct`, { reason: 'x', amountCents: 0 }), 400, 'BAD_REQUEST');
    await expectUnchanged(w, original.id, before);
  });

  it('answers 409 when the original date or the new date is in a closed period', async () => {
    const world = await entryWorld(api);
    const inside = await createEntry(world, { entryDate: '2025-09-30' });
    const outside = await createEntry(world, { entryDate: '2025-10-01' });
    await closePeriod(api, world.token, world.workspaceId, '2025-09-01', '2025-09-30');
    const beforeInside = await snapshot(world, inside.id);
    const beforeOutside = await snapshot(world, outside.id);
    expectErrorBody(await post(world, `/entries/${inside.id}/correct`, { reason: 'fix', entryDate: '2025-10-02' }), 409, 'CONFLICT');
    expectErrorBody(await post(world, `/entries/${outside.id}/correct`, { reason: 'fix', entryDate: '2025-09-01' }), 409, 'CONFLICT');
    await expectUnchanged(world, inside.id, beforeInside);
    await expectUnchanged(world, outside.id, beforeOutside);
  });
});

// ---------------------------------------------------------------------------------------------
// 6. Edit
// ---------------------------------------------------------------------------------------------

describe('PATCH /entries/{id}', () => {
  it('records ENTRY_UPDATED with data.changes {field: {from, to}} for the changed fields', async () => {
    const entry = await createEntry(w, { description: 'before', amountCents: 1_000, entryDate: '2026-01-15' });
    const res = await patch(w, `/entries/${entry.id}`, {
      description: 'after',
      amountCents: 1_500,
      entryDate: '2026-01-16',
      toPartyId: w.parties[3],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ENTRY_KEYS);
    expect(res.body).toMatchObject({ description: 'after', amountCents: 1_500, entryDate: '2026-01-16', toPartyId: w.parties[3] });
    expect(await getEntry(w, entry.id)).toMatchObject({ description: 'after', amountCents: 1_500, entryDate: '2026-01-16' });
    const ev = await lastEvent(w, entry.id);
    expect(ev).toMatchObject({ kind: 'ENTRY_UPDATED', actorType: 'USER', actorId: w.userId });
    expect(ev.data.changes).toEqual({
      description: { from: 'before', to: 'after' },
      amountCents: { from: 1_000, to: 1_500 },
      entryDate: { from: '2026-01-15', to: '2026-01-16' },
      toPartyId: { from: w.parties[1], to: w.parties[3] },
    });
  });

  it.each(['UNDER_REVIEW', 'COMPLETED', 'REJECTED'])('edits a %s entry', async (from) => {
    const entry = await entryIn(w, from);
    const res = await patch(w, `/entries/${entry.id}`, { description: 'edited' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ description: 'edited', entryStatus: from });
  });

  it.each(['VOIDED', 'CANCELLED'])('answers 409 for a %s entry', async (from) => {
    const entry = await entryIn(w, from);
    const before = await snapshot(w, entry.id);
    expectErrorBody(await patch(w, `/entries/${entry.id}`, { description: 'edited' }), 409, 'CONFLICT');
    await expectUnchanged(w, entry.id, before);
  });

  it('answers 409 when the current or the new date is in a closed period', async () => {
    const world = await entryWorld(api);
    const inside = await createEntry(world, { entryDate: '2025-11-15' });
    const outside = await createEntry(world, { entryDate: '2025-12-01' });
    await closePeriod(api, world.token, world.workspaceId, '2025-11-01', '2025-11-30');
    const bi = await snapshot(world, inside.id);
    const bo = await snapshot(world, outside.id);
    expectErrorBody(await patch(world, `/entries/${inside.id}`, { description: 'x' }), 409, 'CONFLICT');
    expectErrorBody(await patch(world, `/entries/${inside.id}`, { entryDate: '2025-12-05' }), 409, 'CONFLICT');
    expectErrorBody(await patch(world, `/entries/${outside.id}`, { entryDate: '2025-11-30' }), 409, 'CONFLICT');
    await expectUnchanged(world, inside.id, bi);
    await expectUnchanged(world, outside.id, bo);
  });

  it('refuses an amountCents below what was already refunded plus reimbursed (409); a voided refund no longer counts', async () => {
    const entry = await createEntry(w, { entryType: 'EXPENSE', amountCents: 10_000 });
    const refund = await post(w, `/entries/${entry.id}/refund`, { amountCents: 3_000, entryDate: '2026-01-20' });
    expectOk(refund);
    expectOk(
      await post(w, `/entries/${entry.id}/reimburse`, {
        amountCents: 2_000,
        fromPartyId: w.parties[2],
        toPartyId: w.parties[3],
        entryDate: '2026-01-20',
      }),
    );
    const before = await snapshot(w, entry.id);
    expectErrorBody(await patch(w, `/entries/${entry.id}`, { amountCents: 4_999 }), 409, 'CONFLICT');
    await expectUnchanged(w, entry.id, before);
    const ok = await patch(w, `/entries/${entry.id}`, { amountCents: 5_000 });
    expect(ok.status).toBe(200);
    expect(ok.body.amountCents).toBe(5_000);
    expectOk(await post(w, `/entries/${refund.body.id}/void`, { reason: 'reversed' }));
    const lower = await patch(w, `/entries/${entry.id}`, { amountCents: 2_000 });
    expect(lower.status).toBe(200);
    expect(lower.body.amountCents).toBe(2_000);
  });
});

// ---------------------------------------------------------------------------------------------
// 7. Reconcile
// ---------------------------------------------------------------------------------------------

describe('PATCH /entries/{id}/reconcile', () => {
  it('true sets reconciledAt (now) and reconciledBy (the caller); false clears both; events RECONCILED / UNRECONCILED', async () => {
    const now = new Date('2030-02-03T04:05:06.789Z');
    clock.set(() => now);
    const world = await entryWorld(api);
    const entry = await createEntry(world);
    expect(entry).toMatchObject({ isReconciled: false, reconciledAt: null, reconciledBy: null });

    const on = await patch(world, `/entries/${entry.id}/reconcile`, { isReconciled: true });
    expect(on.status).toBe(200);
    expect(Object.keys(on.body).sort()).toEqual(ENTRY_KEYS);
    expect(on.body).toMatchObject({ isReconciled: true, reconciledAt: now.toISOString(), reconciledBy: world.userId });
    expect(await getEntry(world, entry.id)).toMatchObject({
      isReconciled: true,
      reconciledAt: now.toISOString(),
      reconciledBy: world.userId,
    });
    expect(await lastEvent(world, entry.id)).toMatchObject({ kind: 'RECONCILED', actorId: world.userId });

    const off = await patch(world, `/entries/${entry.id}/reconcile`, { isReconciled: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ isReconciled: false, reconciledAt: null, reconciledBy: null });
    expect(await getEntry(world, entry.id)).toMatchObject({ isReconciled: false, reconciledAt: null, reconciledBy: null });
    expect(await lastEvent(world, entry.id)).toMatchObject({ kind: 'UNRECONCILED', actorId: world.userId });
  });

  it('records the caller, not the creator, as reconciledBy', async () => {
    const entry = await createEntry(w);
    const other = await actor(api, { workspaceId: w.workspaceId });
    const res = await api.patch(`/entries/${entry.id}/reconcile`, { isReconciled: true }, { token: other.token });
    expect(res.status).toBe(200);
    expect(res.body.reconciledBy).toBe(other.id);
    expect(res.body.createdBy).toBe(w.userId);
    expect(res.body.reconciledAt).toMatch(ISO_TIMESTAMP);
  });

  it.each(['VOIDED', 'CANCELLED'])('answers 409 for a %s entry', async (from) => {
    const entry = await entryIn(w, from);
    const before = await snapshot(w, entry.id);
    expectErrorBody(await patch(w, `/entries/${entry.id}/reconcile`, { isReconciled: true }), 409, 'CONFLICT');
    await expectUnchanged(w, entry.id, before);
  });

  it('requires isReconciled and refuses unknown fields (400)', async () => {
    const entry = await createEntry(w);
    expectErrorBody(await patch(w, `/entries/${entry.id}/reconcile`, {}), 400, 'BAD_REQUEST');
    expectErrorBody(await patch(w, `/entries/${entry.id}/reconcile`, { isReconciled: true, by: 'me' }), 400, 'BAD_REQUEST');
    expect((await getEntry(w, entry.id)).isReconciled).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Access: permissions (403 first) and foreign entries (404)
// ---------------------------------------------------------------------------------------------

describe('access to lifecycle operations', () => {
  const OPS: { name: string; permission: Permission; call: (a: Api, token: string, id: number) => Promise<any> }[] = [
    {
      name: 'status',
      permission: 'entry.edit',
      call: (a, t, id) => a.patch(`/entries/${id}/status`, { status: 'COMPLETED' }, { token: t }),
    },
    { name: 'void', permission: 'entry.void', call: (a, t, id) => a.post(`/entries/${id}/void`, { reason: 'x' }, { token: t }) },
    {
      name: 'refund',
      permission: 'entry.void',
      call: (a, t, id) => a.post(`/entries/${id}/refund`, { amountCents: 1, entryDate: '2026-01-20' }, { token: t }),
    },
    {
      name: 'reimburse',
      permission: 'entry.create',
      call: (a, t, id) =>
        a.post(
          `/entries/${id}/reimburse`,
          { amountCents: 1, fromPartyId: w.parties[2], toPartyId: w.parties[3], entryDate: '2026-01-20' },
          { token: t },
        ),
    },
    { name: 'correct', permission: 'entry.edit', call: (a, t, id) => a.post(`/entries/${id}/correct`, { reason: 'x' }, { token: t }) },
    { name: 'edit', permission: 'entry.edit', call: (a, t, id) => a.patch(`/entries/${id}`, { description: 'x' }, { token: t }) },
    {
      name: 'reconcile',
      permission: 'entry.reconcile',
      call: (a, t, id) => a.patch(`/entries/${id}/reconcile`, { isReconciled: true }, { token: t }),
    },
  ];

  it.each(OPS)('$name needs $permission (403), before membership is looked at', async ({ permission, call }) => {
    const entry = await createEntry(w, { entryType: 'EXPENSE' });
    const before = await snapshot(w, entry.id);
    const member = await actor(api, { workspaceId: w.workspaceId, permissions: PERMISSIONS.filter((p) => p !== permission) });
    expectErrorBody(await call(api, member.token, entry.id), 403, 'FORBIDDEN');
    const stranger = await actor(api, { permissions: PERMISSIONS.filter((p) => p !== permission) });
    expectErrorBody(await call(api, stranger.token, entry.id), 403, 'FORBIDDEN');
    await expectUnchanged(w, entry.id, before);
  });

  it.each(OPS)("$name answers 404 for another workspace's entry", async ({ call }) => {
    const entry = await createEntry(w, { entryType: 'EXPENSE' });
    const before = await snapshot(w, entry.id);
    const stranger = await actor(api, {});
    expectErrorBody(await call(api, stranger.token, entry.id), 404, 'NOT_FOUND');
    await expectUnchanged(w, entry.id, before);
  });

  it.each(['events', 'events/verify', 'related'])("GET /entries/{id}/%s answers 404 for another workspace's entry", async (path) => {
    const entry = await createEntry(w);
    const stranger = await actor(api, {});
    expectErrorBody(await api.get(`/entries/${entry.id}/${path}`, { token: stranger.token }), 404, 'NOT_FOUND');
  });
});

// ---------------------------------------------------------------------------------------------
// 9. Audit trail
// ---------------------------------------------------------------------------------------------

describe('audit events', () => {
  it('lists the history oldest first, verifies the hash chain, and detects an edit made behind the service', async () => {
    const tag = { id: await makeTag(api, w.token, w.workspaceId, 'audit-tag') };
    const entry = await createEntry(w, { amountCents: 10_000 });
    const steps: [string, () => Promise<any>][] = [
      ['edit', () => patch(w, `/entries/${entry.id}`, { description: 'edited' })],
      ['status', () => setStatus(w, entry.id, 'UNDER_REVIEW')],
      ['reconcile', () => patch(w, `/entries/${entry.id}/reconcile`, { isReconciled: true })],
      ['unreconcile', () => patch(w, `/entries/${entry.id}/reconcile`, { isReconciled: false })],
      ['tags', () => w.api.put(`/entries/${entry.id}/tags`, { tagIds: [tag.id] }, { token: w.token })],
      ['refund', () => post(w, `/entries/${entry.id}/refund`, { amountCents: 1_000, entryDate: '2026-01-20' })],
      ['note', () => post(w, `/entries/${entry.id}/notes`, { content: 'checked with the supplier' })],
      ['void', () => post(w, `/entries/${entry.id}/void`, { reason: 'done' })],
    ];
    for (const [name, step] of steps) expectOk(await step(), name);

    const evs = await events(w, entry.id);
    expect(evs.map((e) => e.kind)).toEqual([
      'ENTRY_CREATED',
      'ENTRY_UPDATED',
      'STATUS_CHANGED',
      'RECONCILED',
      'UNRECONCILED',
      'TAGS_CHANGED',
      'REFUND_CREATED',
      'NOTE_ADDED',
      'VOIDED',
    ]);
    for (const e of evs) {
      expect(e).toMatchObject({ entryId: entry.id, actorType: 'USER', actorId: w.userId });
      expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(e.createdAt).toMatch(ISO_TIMESTAMP);
      expect(typeof e.data).toBe('object');
      expect(e.hash).toMatch(/^[0-9a-f]{64}$/);
    }
    // oldest first, chained
    for (let i = 1; i < evs.length; i++) {
      expect(evs[i].createdAt >= evs[i - 1].createdAt).toBe(true);
      expect(evs[i].prevHash).toBe(evs[i - 1].hash);
    }
    expect(evs[0].prevHash).toBeNull();
    expect(evs[2].data).toEqual({ from: 'PENDING', to: 'UNDER_REVIEW', reason: null });

    const ok = await w.api.get(`/entries/${entry.id}/events/verify`, { token: w.token });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ valid: true, count: 9, firstBrokenEventId: null });

    // the database itself refuses to change or remove an event
    const target = evs[3];
    await expect(
      db().query(`UPDATE entry_events SET data = '{"forged":true}'::jsonb WHERE id = :id`, { replacements: { id: target.id } }),
    ).rejects.toThrow(/append-only/);
    await expect(db().query('DELETE FROM entry_events WHERE id = :id', { replacements: { id: target.id } })).rejects.toThrow(/append-only/);
    expect(await events(w, entry.id)).toEqual(evs);

    // tamper behind the service's back: only possible with the trigger disabled
    await transaction(async (tx) => {
      await db().query('ALTER TABLE entry_events DISABLE TRIGGER entry_events_no_update_delete', { transaction: tx });
      await db().query(`UPDATE entry_events SET data = '{"forged":true}'::jsonb WHERE id = :id`, {
        replacements: { id: target.id },
        transaction: tx,
      });
      await db().query('ALTER TABLE entry_events ENABLE TRIGGER entry_events_no_update_delete', { transaction: tx });
    });
    // the trigger is back in force
    await expect(db().query(`UPDATE entry_events SET kind = kind WHERE id = :id`, { replacements: { id: target.id } })).rejects.toThrow(
      /append-only/,
    );

    const broken = await w.api.get(`/entries/${entry.id}/events/verify`, { token: w.token });
    expect(broken.status).toBe(200);
    expect(broken.body).toEqual({ valid: false, count: 9, firstBrokenEventId: target.id });

    // other entries' chains are unaffected
    const fresh = await createEntry(w);
    const freshVerify = await w.api.get(`/entries/${fresh.id}/events/verify`, { token: w.token });
    expect(freshVerify.body).toEqual({ valid: true, count: 1, firstBrokenEventId: null });
  });

  it('verify also catches a changed createdAt or kind', async () => {
    const entry = await createEntry(w);
    expectOk(await setStatus(w, entry.id, 'COMPLETED'));
    expectOk(await post(w, `/entries/${entry.id}/void`, { reason: 'r' }));
    const evs = await events(w, entry.id);
    await transaction(async (tx) => {
      await db().query('ALTER TABLE entry_events DISABLE TRIGGER entry_events_no_update_delete', { transaction: tx });
      await db().query(`UPDATE entry_events SET created_at = created_at + interval '1 second' WHERE id = :id`, {
        replacements: { id: evs[1].id },
        transaction: tx,
      });
      await db().query('ALTER TABLE entry_events ENABLE TRIGGER entry_events_no_update_delete', { transaction: tx });
    });
    const res = await w.api.get(`/entries/${entry.id}/events/verify`, { token: w.token });
    expect(res.body).toEqual({ valid: false, count: 3, firstBrokenEventId: evs[1].id });
  });
});
