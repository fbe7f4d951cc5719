import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../server/lib/clock.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import {
  actor,
  addProjectMember,
  buildWorkspace,
  closePeriod,
  createEntry,
  createPeriod,
  entryWorld,
  type EntryWorld,
} from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api, type ApiResponse } from '../support/http.js';
import {
  addDays,
  events,
  expectOk,
  expectUnchanged,
  getEntry,
  ISO_TIMESTAMP,
  related,
  reopenPeriod,
  snapshot,
} from '../support/entries.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});
afterEach(() => clock.reset());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PERIOD_KEYS = ['id', 'workspaceId', 'name', 'startDate', 'endDate', 'status', 'closedAt', 'closedBy', 'createdAt'].sort();

/** A member with every permission in a fresh workspace. */
async function member() {
  const ws = await buildWorkspace();
  const user = await actor(api, { workspaceId: ws.id });
  return { ws: ws.id, token: user.token, userId: user.id };
}

describe('accounting periods: create, list, get', () => {
  it('creates an OPEN period with the contract shape', async () => {
    const m = await member();
    const res = await api.post(
      '/accounting/periods',
      { workspaceId: m.ws, name: 'January 2025', startDate: '2025-01-01', endDate: '2025-01-31' },
      { token: m.token },
    );
    expectOk(res);
    expect(Object.keys(res.body).sort()).toEqual(PERIOD_KEYS);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      workspaceId: m.ws,
      name: 'January 2025',
      startDate: '2025-01-01',
      endDate: '2025-01-31',
      status: 'OPEN',
      closedAt: null,
      closedBy: null,
      createdAt: expect.stringMatching(ISO_TIMESTAMP),
    });

    const got = await api.get(`/accounting/periods/${res.body.id}`, { token: m.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('lists the periods of the workspace as a plain array, and only those', async () => {
    const m = await member();
    const other = await member();
    const jan = await createPeriod(api, m.token, m.ws, '2025-01-01', '2025-01-31', 'Jan');
    const feb = await createPeriod(api, m.token, m.ws, '2025-02-01', '2025-02-28', 'Feb');
    await createPeriod(api, other.token, other.ws, '2025-01-01', '2025-01-31', 'Other Jan');
    const res = await api.get('/accounting/periods', { token: m.token, query: { workspaceId: m.ws } });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    const sorted = [...res.body].sort((a, b) => (a.startDate < b.startDate ? -1 : 1));
    expect(sorted).toEqual([jan, feb]);
  });

  it('needs workspaceId on the list (400)', async () => {
    const m = await member();
    expectErrorBody(await api.get('/accounting/periods', { token: m.token }), 400, 'BAD_REQUEST');
  });

  it('accepts a one-day period (startDate = endDate) and refuses startDate > endDate (400)', async () => {
    const m = await member();
    const day = await createPeriod(api, m.token, m.ws, '2025-03-15', '2025-03-15');
    expect(day).toMatchObject({ startDate: '2025-03-15', endDate: '2025-03-15' });
    const bad = await api.post(
      '/accounting/periods',
      { workspaceId: m.ws, name: 'Backwards', startDate: '2025-05-31', endDate: '2025-05-01' },
      { token: m.token },
    );
    expectErrorBody(bad, 400, 'BAD_REQUEST');
    const list = await api.get('/accounting/periods', { token: m.token, query: { workspaceId: m.ws } });
    expect(list.body).toHaveLength(1);
  });

  it.each([
    ['an impossible date', { startDate: '2025-02-30', endDate: '2025-03-01' }],
    ['a non-ISO date', { startDate: '01/02/2025', endDate: '2025-03-01' }],
    ['an empty name', { name: '' }],
    ['a missing endDate', { endDate: undefined }],
    ['an unknown field', { status: 'CLOSED' }],
  ])('refuses %s (400)', async (_label, patch) => {
    const m = await member();
    const body = { workspaceId: m.ws, name: 'P', startDate: '2025-01-01', endDate: '2025-01-31', ...patch };
    expectErrorBody(await api.post('/accounting/periods', body, { token: m.token }), 400, 'BAD_REQUEST');
  });

  describe('overlap (409), bounds inclusive', () => {
    it.each([
      ['the same range', '2025-01-01', '2025-01-31'],
      ['a range inside', '2025-01-10', '2025-01-20'],
      ['a range around it', '2024-12-01', '2025-03-01'],
      ['a range ending on its startDate', '2024-12-15', '2025-01-01'],
      ['a range starting on its endDate', '2025-01-31', '2025-02-10'],
      ['a one-day range on its endDate', '2025-01-31', '2025-01-31'],
    ])('refuses %s', async (_label, startDate, endDate) => {
      const m = await member();
      await createPeriod(api, m.token, m.ws, '2025-01-01', '2025-01-31');
      expectErrorBody(
        await api.post('/accounting/periods', { workspaceId: m.ws, name: 'X', startDate, endDate }, { token: m.token }),
        409,
        'CONFLICT',
      );
      expect((await api.get('/accounting/periods', { token: m.token, query: { workspaceId: m.ws } })).body).toHaveLength(1);
    });

    it('refuses an overlap with a CLOSED period too', async () => {
      const m = await member();
      await closePeriod(api, m.token, m.ws, '2025-01-01', '2025-01-31');
      expectErrorBody(
        await api.post(
          '/accounting/periods',
          { workspaceId: m.ws, name: 'X', startDate: '2025-01-31', endDate: '2025-02-28' },
          { token: m.token },
        ),
        409,
        'CONFLICT',
      );
    });

    it('accepts the adjacent days and the same range in another workspace', async () => {
      const m = await member();
      const other = await member();
      await createPeriod(api, m.token, m.ws, '2025-01-01', '2025-01-31');
      await createPeriod(api, m.token, m.ws, '2024-12-01', '2024-12-31');
      await createPeriod(api, m.token, m.ws, '2025-02-01', '2025-02-28');
      await createPeriod(api, other.token, other.ws, '2025-01-01', '2025-01-31');
    });
  });
});

describe('accounting periods: close, reopen, delete', () => {
  it('close: OPEN → CLOSED with closedAt and closedBy; a second close is 409', async () => {
    const m = await member();
    const p = await createPeriod(api, m.token, m.ws, '2025-01-01', '2025-01-31');
    const now = new Date('2031-01-05T10:11:12.345Z');
    clock.set(() => now);
    const closer = await actor(api, { workspaceId: m.ws });
    const res = await api.patch(`/accounting/periods/${p.id}/close`, undefined, { token: closer.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(PERIOD_KEYS);
    expect(res.body).toEqual({ ...p, status: 'CLOSED', closedAt: now.toISOString(), closedBy: closer.id });
    expect((await api.get(`/accounting/periods/${p.id}`, { token: closer.token })).body).toEqual(res.body);

    expectErrorBody(await api.patch(`/accounting/periods/${p.id}/close`, undefined, { token: closer.token }), 409, 'CONFLICT');
    expect((await api.get(`/accounting/periods/${p.id}`, { token: closer.token })).body).toEqual(res.body);
  });

  it('reopen: CLOSED → OPEN; reopening an OPEN period is 409; it can be closed again', async () => {
    const m = await member();
    const p = await createPeriod(api, m.token, m.ws, '2025-01-01', '2025-01-31');
    expectErrorBody(await api.patch(`/accounting/periods/${p.id}/reopen`, undefined, { token: m.token }), 409, 'CONFLICT');
    expectOk(await api.patch(`/accounting/periods/${p.id}/close`, undefined, { token: m.token }));
    const reopened = await reopenPeriod(api, m.token, p.id);
    expect(Object.keys(reopened).sort()).toEqual(PERIOD_KEYS);
    expect(reopened).toMatchObject({ id: p.id, status: 'OPEN', startDate: '2025-01-01', endDate: '2025-01-31' });
    expectErrorBody(await api.patch(`/accounting/periods/${p.id}/reopen`, undefined, { token: m.token }), 409, 'CONFLICT');
    const again = await api.patch(`/accounting/periods/${p.id}/close`, undefined, { token: m.token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'CLOSED', closedBy: m.userId });
  });

  it('delete: only an OPEN period (CLOSED → 409); the deleted one is gone and its range is free again', async () => {
    const m = await member();
    const closed = await closePeriod(api, m.token, m.ws, '2025-01-01', '2025-01-31');
    expectErrorBody(await api.del(`/accounting/periods/${closed.id}`, { token: m.token }), 409, 'CONFLICT');
    expect((await api.get(`/accounting/periods/${closed.id}`, { token: m.token })).body).toEqual(closed);

    const open = await createPeriod(api, m.token, m.ws, '2025-02-01', '2025-02-28');
    const res = await api.del(`/accounting/periods/${open.id}`, { token: m.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expectErrorBody(await api.get(`/accounting/periods/${open.id}`, { token: m.token }), 404, 'NOT_FOUND');
    expect((await api.get('/accounting/periods', { token: m.token, query: { workspaceId: m.ws } })).body).toEqual([closed]);
    await createPeriod(api, m.token, m.ws, '2025-02-01', '2025-02-28');
  });
});

describe('accounting periods: access', () => {
  const OPS: { name: string; call: (token: string, ws: number, periodId: string) => Promise<ApiResponse> }[] = [
    { name: 'list', call: (t, ws) => api.get('/accounting/periods', { token: t, query: { workspaceId: ws } }) },
    {
      name: 'create',
      call: (t, ws) =>
        api.post('/accounting/periods', { workspaceId: ws, name: 'X', startDate: '2026-05-01', endDate: '2026-05-31' }, { token: t }),
    },
    { name: 'get', call: (t, _ws, id) => api.get(`/accounting/periods/${id}`, { token: t }) },
    { name: 'close', call: (t, _ws, id) => api.patch(`/accounting/periods/${id}/close`, undefined, { token: t }) },
    { name: 'reopen', call: (t, _ws, id) => api.patch(`/accounting/periods/${id}/reopen`, undefined, { token: t }) },
    { name: 'delete', call: (t, _ws, id) => api.del(`/accounting/periods/${id}`, { token: t }) },
  ];

  it.each(OPS)('$name needs accounting.periods (403), also for another workspace', async ({ call }) => {
    const owner = await member();
    const period = await createPeriod(api, owner.token, owner.ws, '2025-01-01', '2025-01-31');
    const lacking = PERMISSIONS.filter((p) => p !== 'accounting.periods');
    const insider = await actor(api, { workspaceId: owner.ws, permissions: lacking });
    expectErrorBody(await call(insider.token, owner.ws, period.id), 403, 'FORBIDDEN');
    const outsider = await actor(api, { permissions: lacking });
    expectErrorBody(await call(outsider.token, owner.ws, period.id), 403, 'FORBIDDEN');
    expect((await api.get(`/accounting/periods/${period.id}`, { token: owner.token })).body).toEqual(period);
  });

  it.each(OPS.slice(0, 2))('$name with a workspaceId the caller is not a member of: 403', async ({ call }) => {
    const owner = await member();
    const stranger = await member();
    expectErrorBody(await call(stranger.token, owner.ws, '00000000-0000-4000-8000-000000000000'), 403, 'FORBIDDEN');
    expect((await api.get('/accounting/periods', { token: owner.token, query: { workspaceId: owner.ws } })).body).toEqual([]);
  });

  it.each(OPS.slice(2))("$name of another workspace's period: 404, and it is not touched", async ({ call }) => {
    const owner = await member();
    const period = await createPeriod(api, owner.token, owner.ws, '2025-01-01', '2025-01-31');
    const stranger = await member();
    expectErrorBody(await call(stranger.token, stranger.ws, period.id), 404, 'NOT_FOUND');
    expect((await api.get(`/accounting/periods/${period.id}`, { token: owner.token })).body).toEqual(period);
  });

  it('a project member who is not a workspace member reaches no period (list/create 403, by id 404)', async () => {
    const ws = await buildWorkspace();
    const owner = await actor(api, { workspaceId: ws.id });
    const period = await createPeriod(api, owner.token, ws.id, '2025-01-01', '2025-01-31');
    const projectOnly = await actor(api, {});
    await addProjectMember(ws.projectIds[0], projectOnly.id);
    for (const op of OPS.slice(0, 2)) expectErrorBody(await op.call(projectOnly.token, ws.id, period.id), 403, 'FORBIDDEN');
    for (const op of OPS.slice(2)) expectErrorBody(await op.call(projectOnly.token, ws.id, period.id), 404, 'NOT_FOUND');
    expect((await api.get(`/accounting/periods/${period.id}`, { token: owner.token })).body).toEqual(period);
  });

  it.each(OPS.slice(2))('$name of an unknown id: 404; of a malformed id: 400', async ({ call }) => {
    const m = await member();
    expectErrorBody(await call(m.token, m.ws, '5b0c1b9e-1e2f-4c1d-9a7b-3c2d1e0f9a8b'), 404, 'NOT_FOUND');
    expectErrorBody(await call(m.token, m.ws, 'not-a-uuid'), 400, 'BAD_REQUEST');
  });
});

// ---------------------------------------------------------------------------------------------
// Everything a closed period blocks (CONTRACT §7), table-driven, bounds inclusive.
// ---------------------------------------------------------------------------------------------

const START = '2025-04-01';
const END = '2025-04-30';
/** a date in no period: where entries are put that are moved into the period */
const OPEN_DATE = '2025-06-10';
const BLOCKED_DATES = [START, '2025-04-15', END];
const FREE_DATES = [addDays(START, -1), addDays(END, 1)];

type Prepared = { entryId?: number };
type BlockedOp = {
  name: string;
  /** runs while the period is still OPEN; returns the entry the operation acts on */
  prepare: (w: EntryWorld, date: string) => Promise<Prepared>;
  run: (w: EntryWorld, date: string, p: Prepared) => Promise<ApiResponse>;
  /** whether a success creates a new entry (refund, reimburse, correct, create) */
  creates: boolean;
  /** whether a success leaves one more entry dated D (a new one, or one moved there) */
  addsOnD: boolean;
};

const entryAt = async (w: EntryWorld, date: string, extra: Record<string, unknown> = {}) => ({
  entryId: (await createEntry(w, { entryDate: date, ...extra })).id,
});

const BLOCKED_OPS: BlockedOp[] = [
  {
    name: 'create an entry dated D',
    prepare: async () => ({}),
    run: (w, date) =>
      w.api.post(
        '/entries',
        { projectId: w.projectId, entryType: 'INCOME', amountCents: 123, baseCurrency: 'USD', entryDate: date },
        { token: w.token },
      ),
    creates: true,
    addsOnD: true,
  },
  {
    name: 'edit an entry dated D',
    prepare: (w, date) => entryAt(w, date),
    run: (w, _date, p) => w.api.patch(`/entries/${p.entryId}`, { description: 'late edit' }, { token: w.token }),
    creates: false,
    addsOnD: false,
  },
  {
    name: 'edit an entry, moving its date to D',
    prepare: (w) => entryAt(w, OPEN_DATE),
    run: (w, date, p) => w.api.patch(`/entries/${p.entryId}`, { entryDate: date }, { token: w.token }),
    creates: false,
    addsOnD: true,
  },
  {
    name: 'void an entry dated D',
    prepare: (w, date) => entryAt(w, date),
    run: (w, _date, p) => w.api.post(`/entries/${p.entryId}/void`, { reason: 'late void' }, { token: w.token }),
    creates: false,
    addsOnD: false,
  },
  {
    name: 'status → VOIDED of an entry dated D',
    prepare: (w, date) => entryAt(w, date),
    run: (w, _date, p) => w.api.patch(`/entries/${p.entryId}/status`, { status: 'VOIDED', reason: 'late void' }, { token: w.token }),
    creates: false,
    addsOnD: false,
  },
  {
    name: 'refund dated D',
    prepare: (w) => entryAt(w, OPEN_DATE),
    run: (w, date, p) => w.api.post(`/entries/${p.entryId}/refund`, { amountCents: 100, entryDate: date }, { token: w.token }),
    creates: true,
    addsOnD: true,
  },
  {
    name: 'reimbursement dated D',
    prepare: (w) => entryAt(w, OPEN_DATE, { entryType: 'EXPENSE' }),
    run: (w, date, p) =>
      w.api.post(
        `/entries/${p.entryId}/reimburse`,
        { amountCents: 100, fromPartyId: w.parties[2], toPartyId: w.parties[3], entryDate: date },
        { token: w.token },
      ),
    creates: true,
    addsOnD: true,
  },
  {
    name: 'correct an entry dated D',
    prepare: (w, date) => entryAt(w, date),
    run: (w, _date, p) => w.api.post(`/entries/${p.entryId}/correct`, { reason: 'late fix', amountCents: 9_999 }, { token: w.token }),
    creates: true,
    addsOnD: true,
  },
  {
    name: 'correct an entry, moving its date to D',
    prepare: (w) => entryAt(w, OPEN_DATE),
    run: (w, date, p) => w.api.post(`/entries/${p.entryId}/correct`, { reason: 'late fix', entryDate: date }, { token: w.token }),
    creates: true,
    addsOnD: true,
  },
];

async function entriesBetween(w: EntryWorld, fromDate: string, toDate: string): Promise<number> {
  const res = await w.api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, fromDate, toDate, limit: 1 } });
  expect(res.status).toBe(200);
  return res.body.total;
}

describe('a closed period blocks (CONTRACT §7)', () => {
  it('every blocked operation, at both bounds and inside; not on the days around it; all succeed again after reopen', async () => {
    const w = await entryWorld(api);
    const period = await createPeriod(api, w.token, w.workspaceId, START, END, 'April 2025');

    type Case = { op: BlockedOp; date: string; blocked: boolean; prepared: Prepared };
    const cases: Case[] = [];
    for (const op of BLOCKED_OPS) {
      for (const date of BLOCKED_DATES) cases.push({ op, date, blocked: true, prepared: await op.prepare(w, date) });
      for (const date of FREE_DATES) cases.push({ op, date, blocked: false, prepared: await op.prepare(w, date) });
    }

    expectOk(await api.patch(`/accounting/periods/${period.id}/close`, undefined, { token: w.token }));
    const inPeriodBefore = await entriesBetween(w, START, END);

    const failures: string[] = [];
    for (const c of cases.filter((x) => x.blocked)) {
      const before = c.prepared.entryId ? await snapshot(w, c.prepared.entryId) : undefined;
      const res = await c.op.run(w, c.date, c.prepared);
      if (res.status !== 409) failures.push(`${c.op.name} [D=${c.date}] while closed: expected 409, got ${res.status} ${res.text}`);
      else expectErrorBody(res, 409, 'CONFLICT');
      if (before) await expectUnchanged(w, c.prepared.entryId!, before);
    }
    expect(failures).toEqual([]);
    // nothing was created inside the closed period
    expect(await entriesBetween(w, START, END)).toBe(inPeriodBefore);

    for (const c of cases.filter((x) => !x.blocked)) {
      const res = await c.op.run(w, c.date, c.prepared);
      if (res.status !== 200 && res.status !== 201)
        failures.push(`${c.op.name} [D=${c.date}] outside the period: got ${res.status} ${res.text}`);
    }
    expect(failures).toEqual([]);

    await reopenPeriod(api, w.token, period.id);
    for (const c of cases.filter((x) => x.blocked)) {
      const res = await c.op.run(w, c.date, c.prepared);
      if (res.status !== 200 && res.status !== 201) failures.push(`${c.op.name} [D=${c.date}] after reopen: got ${res.status} ${res.text}`);
      else if (c.op.creates) expect(res.body.id).not.toBe(c.prepared.entryId);
    }
    expect(failures).toEqual([]);
    const created = BLOCKED_OPS.filter((op) => op.addsOnD).length * BLOCKED_DATES.length;
    expect(await entriesBetween(w, START, END)).toBe(inPeriodBefore + created);
  });

  it('the void by a full refund is skipped for an original in a closed period, and the refund still counts', async () => {
    const w = await entryWorld(api);
    const original = await createEntry(w, { entryDate: END, amountCents: 500 });
    const period = await closePeriod(api, w.token, w.workspaceId, START, END);
    const res = await w.api.post(`/entries/${original.id}/refund`, { amountCents: 500, entryDate: OPEN_DATE }, { token: w.token });
    expectOk(res);
    expect(await getEntry(w, original.id)).toMatchObject({ entryStatus: 'PENDING', statusReason: null });
    expect((await related(w, original.id)).map((r) => r.entry.id)).toEqual([res.body.id]);
    // after reopening, the original may be voided by hand, but never refunded beyond its amount
    await reopenPeriod(api, w.token, period.id);
    expectErrorBody(
      await w.api.post(`/entries/${original.id}/refund`, { amountCents: 1, entryDate: OPEN_DATE }, { token: w.token }),
      409,
      'CONFLICT',
    );
  });

  it('does not block what it does not name: other status changes, reconcile, notes, refunds dated outside it', async () => {
    const w = await entryWorld(api);
    const a = await createEntry(w, { entryDate: START });
    const b = await createEntry(w, { entryDate: END, entryType: 'EXPENSE', amountCents: 1_000 });
    await closePeriod(api, w.token, w.workspaceId, START, END);

    const toReview = await w.api.patch(`/entries/${a.id}/status`, { status: 'UNDER_REVIEW' }, { token: w.token });
    expect(toReview.status).toBe(200);
    const done = await w.api.patch(`/entries/${a.id}/status`, { status: 'COMPLETED' }, { token: w.token });
    expect(done.status).toBe(200);
    expect(done.body.entryStatus).toBe('COMPLETED');
    const rec = await w.api.patch(`/entries/${a.id}/reconcile`, { isReconciled: true }, { token: w.token });
    expect(rec.status).toBe(200);
    expectOk(await w.api.post(`/entries/${a.id}/notes`, { content: 'looked at after closing' }, { token: w.token }));
    expectOk(await w.api.post(`/entries/${b.id}/refund`, { amountCents: 300, entryDate: OPEN_DATE }, { token: w.token }));
    expectOk(
      await w.api.post(
        `/entries/${b.id}/reimburse`,
        { amountCents: 300, fromPartyId: w.parties[2], toPartyId: w.parties[3], entryDate: OPEN_DATE },
        { token: w.token },
      ),
    );
    expect((await events(w, a.id)).map((e) => e.kind)).toEqual([
      'ENTRY_CREATED',
      'STATUS_CHANGED',
      'STATUS_CHANGED',
      'RECONCILED',
      'NOTE_ADDED',
    ]);
  });

  it("only the entry's own workspace's periods count", async () => {
    const w = await entryWorld(api);
    const other = await entryWorld(api);
    await closePeriod(api, other.token, other.workspaceId, START, END);
    const e = await createEntry(w, { entryDate: '2025-04-10' });
    expectOk(await w.api.post(`/entries/${e.id}/void`, { reason: 'fine here' }, { token: w.token }));
  });

  it('an OPEN period blocks nothing', async () => {
    const w = await entryWorld(api);
    await createPeriod(api, w.token, w.workspaceId, START, END);
    const e = await createEntry(w, { entryDate: START });
    expect((await w.api.patch(`/entries/${e.id}`, { entryDate: END }, { token: w.token })).status).toBe(200);
    expectOk(await w.api.post(`/entries/${e.id}/void`, { reason: 'fine' }, { token: w.token }));
  });
});
