import { beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../shared/permissions.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { expectOk, setStatus } from '../support/entries.js';
import {
  actor,
  addProjectMember,
  createCategory,
  createEntry,
  createKey,
  entryWorld,
  fxWorld,
  putRate,
  type EntryWorld,
} from '../support/factories/index.js';

/** CONTRACT §25: budgets, budget-vs-actual and budget.exceeded over HTTP. */
const BUDGET_KEYS = [
  'createdAt',
  'createdBy',
  'currency',
  'id',
  'lines',
  'name',
  'period',
  'periods',
  'startDate',
  'updatedAt',
  'workspaceId',
];

let api: Api;
let w: EntryWorld;
let other: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api, { projects: 2 });
  other = await entryWorld(api);
});

const postBudget = (ws: EntryWorld, body: Record<string, unknown> = {}, token = ws.token) =>
  api.post(
    '/budgets',
    {
      workspaceId: ws.workspaceId,
      name: 'Operating plan',
      period: 'MONTH',
      startDate: '2026-01-01',
      periods: 3,
      lines: [{ entryType: 'EXPENSE', amountCents: 100_000 }],
      ...body,
    },
    { token },
  );
const createBudget = async (ws: EntryWorld, body: Record<string, unknown> = {}) => {
  const res = await postBudget(ws, body);
  expectOk(res, 'create budget');
  return res.body;
};
const report = (ws: EntryWorld, budgetId: string, token = ws.token) => api.get('/reports/budget-vs-actual', { token, query: { budgetId } });
const exceededEvents = async (ws: EntryWorld) => {
  const res = await api.get('/webhook-events', {
    token: ws.token,
    query: { workspaceId: ws.workspaceId, type: 'budget.exceeded', limit: 100 },
  });
  expectOk(res, 'webhook events');
  return res.body.items as any[];
};

describe('budgets: create, read, update, delete', () => {
  it('creates a budget in the workspace’s base currency with its lines numbered', async () => {
    const cat = await createCategory(w);
    const b = await createBudget(w, {
      lines: [
        { entryType: 'EXPENSE', amountCents: 100_000 },
        { entryType: 'EXPENSE', categoryId: cat.id, amountCents: 20_000 },
        { entryType: 'INCOME', projectId: w.projectIds[1], amountCents: 50_000 },
      ],
    });
    expect(Object.keys(b).sort()).toEqual(BUDGET_KEYS);
    expect(b).toMatchObject({ workspaceId: w.workspaceId, currency: 'USD', period: 'MONTH', periods: 3, createdBy: w.userId });
    expect(b.lines).toEqual([
      { lineIndex: 0, categoryId: null, projectId: null, entryType: 'EXPENSE', amountCents: 100_000 },
      { lineIndex: 1, categoryId: cat.id, projectId: null, entryType: 'EXPENSE', amountCents: 20_000 },
      { lineIndex: 2, categoryId: null, projectId: w.projectIds[1], entryType: 'INCOME', amountCents: 50_000 },
    ]);
    expect((await api.get(`/budgets/${b.id}`, { token: w.token })).body).toEqual(b);
    const list = await api.get('/budgets', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(list.body.map((x: any) => x.id)).toContain(b.id);
  });

  it('400: a start that is not the first day of its period, 0 or 37 periods, no lines or 201, foreign ids in lines', async () => {
    expectErrorBody(await postBudget(w, { startDate: '2026-01-02' }), 400, 'BAD_REQUEST');
    expectErrorBody(await postBudget(w, { period: 'QUARTER', startDate: '2026-02-01' }), 400, 'BAD_REQUEST');
    expectErrorBody(await postBudget(w, { period: 'YEAR', startDate: '2026-04-01' }), 400, 'BAD_REQUEST');
    expectErrorBody(await postBudget(w, { periods: 0 }), 400, 'BAD_REQUEST');
    expectErrorBody(await postBudget(w, { periods: 37 }), 400, 'BAD_REQUEST');
    expectErrorBody(await postBudget(w, { lines: [] }), 400, 'BAD_REQUEST');
    const many = Array.from({ length: 201 }, () => ({ entryType: 'EXPENSE', amountCents: 1 }));
    expectErrorBody(await postBudget(w, { lines: many }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await postBudget(w, { lines: [{ entryType: 'EXPENSE', amountCents: 1, projectId: other.projectId }] }),
      400,
      'BAD_REQUEST',
    );
    const foreignCat = await createCategory(other);
    expectErrorBody(
      await postBudget(w, { lines: [{ entryType: 'EXPENSE', amountCents: 1, categoryId: foreignCat.id }] }),
      400,
      'BAD_REQUEST',
    );
  });

  it('writes need accounting.manage and the whole workspace; reads any member; another workspace’s budget is a 404', async () => {
    const b = await createBudget(w);
    const reader = await actor(api, { workspaceId: w.workspaceId, permissions: PERMISSIONS.filter((p) => p !== 'accounting.manage') });
    expectErrorBody(await postBudget(w, {}, reader.token), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/budgets/${b.id}`, { name: 'x' }, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del(`/budgets/${b.id}`, { token: reader.token }), 403, 'FORBIDDEN');
    expect((await api.get(`/budgets/${b.id}`, { token: reader.token })).status).toBe(200);
    expect((await report(w, b.id, reader.token)).status).toBe(200);

    expectErrorBody(await postBudget(w, {}, other.token), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/budgets', { token: other.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    for (const res of [
      await api.get(`/budgets/${b.id}`, { token: other.token }),
      await api.patch(`/budgets/${b.id}`, { name: 'x' }, { token: other.token }),
      await api.del(`/budgets/${b.id}`, { token: other.token }),
      await report(w, b.id, other.token),
    ])
      expectErrorBody(res, 404, 'NOT_FOUND');

    const member = await actor(api);
    await addProjectMember(w.projectIds[1], member.id);
    // a budget plans the whole workspace: project members get 403 on every budget read, as on its report
    expectErrorBody(await api.get('/budgets', { token: member.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get(`/budgets/${b.id}`, { token: member.token }), 403, 'FORBIDDEN');
    expectErrorBody(await report(w, b.id, member.token), 403, 'FORBIDDEN');
    expectErrorBody(await postBudget(w, {}, member.token), 403, 'FORBIDDEN');
    const scopedKey = await createKey(api, w.token, {
      workspaceId: w.workspaceId,
      permissions: ['accounting.manage'],
      projectIds: [w.projectId],
    });
    expectErrorBody(await report(w, b.id, scopedKey.apiKey), 403, 'FORBIDDEN');
  });

  it('PATCH changes name, periods and lines; DELETE removes it', async () => {
    const b = await createBudget(w);
    const patched = await api.patch(
      `/budgets/${b.id}`,
      { name: 'Revised', periods: 12, lines: [{ entryType: 'INCOME', amountCents: 5 }] },
      { token: w.token },
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Revised', periods: 12, lines: [{ lineIndex: 0, entryType: 'INCOME', amountCents: 5 }] });
    expectErrorBody(await api.patch(`/budgets/${b.id}`, { startDate: '2026-01-15' }, { token: w.token }), 400, 'BAD_REQUEST');
    expect((await api.del(`/budgets/${b.id}`, { token: w.token })).body).toEqual({ success: true });
    expectErrorBody(await api.get(`/budgets/${b.id}`, { token: w.token }), 404, 'NOT_FOUND');
  });
});

describe('budget-vs-actual', () => {
  it('sums amountBaseCents of the counted entries per period and line (type, category, project), with variance and used %', async () => {
    const ws = await entryWorld(api, { projects: 2 });
    const cat = await createCategory(ws);
    const b = await createBudget(ws, {
      period: 'QUARTER',
      startDate: '2026-01-01',
      periods: 2,
      lines: [
        { entryType: 'EXPENSE', amountCents: 30_000 },
        { entryType: 'EXPENSE', categoryId: cat.id, amountCents: 10_000 },
        { entryType: 'EXPENSE', projectId: ws.projectIds[1], amountCents: 0 },
        { entryType: 'INCOME', amountCents: 3 },
      ],
    });
    await createEntry(ws, { amountCents: 10_000, entryDate: '2026-01-10', categoryId: cat.id });
    await createEntry(ws, { amountCents: 2_345, entryDate: '2026-03-31', projectId: ws.projectIds[1] });
    await createEntry(ws, { amountCents: 7_000, entryDate: '2026-04-01' });
    const rejected = await createEntry(ws, { amountCents: 99_999, entryDate: '2026-02-01' });
    expectOk(await setStatus(ws, rejected.id, 'REJECTED', 'not ours'), 'reject');
    const completed = await createEntry(ws, { amountCents: 1_000, entryDate: '2026-05-05', categoryId: cat.id });
    expectOk(await setStatus(ws, completed.id, 'COMPLETED'), 'complete');
    await createEntry(ws, { amountCents: 1, entryType: 'INCOME', entryDate: '2026-07-01' }); // after the window
    await createEntry(ws, { amountCents: 1, entryType: 'INCOME', entryDate: '2025-12-31' }); // before it

    const res = await report(ws, b.id);
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe('USD');
    expect(res.body.budget.id).toBe(b.id);
    expect(res.body.periods).toEqual([
      {
        label: '2026-Q1',
        from: '2026-01-01',
        to: '2026-03-31',
        lines: [
          { lineIndex: 0, budgetCents: 30_000, actualCents: 12_345, varianceCents: 17_655, usedPercent: 41.2 },
          { lineIndex: 1, budgetCents: 10_000, actualCents: 10_000, varianceCents: 0, usedPercent: 100 },
          { lineIndex: 2, budgetCents: 0, actualCents: 2_345, varianceCents: -2_345, usedPercent: null },
          { lineIndex: 3, budgetCents: 3, actualCents: 0, varianceCents: 3, usedPercent: 0 },
        ],
      },
      {
        label: '2026-Q2',
        from: '2026-04-01',
        to: '2026-06-30',
        lines: [
          { lineIndex: 0, budgetCents: 30_000, actualCents: 8_000, varianceCents: 22_000, usedPercent: 26.7 },
          { lineIndex: 1, budgetCents: 10_000, actualCents: 1_000, varianceCents: 9_000, usedPercent: 10 },
          { lineIndex: 2, budgetCents: 0, actualCents: 0, varianceCents: 0, usedPercent: null },
          { lineIndex: 3, budgetCents: 3, actualCents: 0, varianceCents: 3, usedPercent: 0 },
        ],
      },
    ]);
  });

  it('labels months YYYY-MM and years YYYY, and reads base amounts of other currencies (entries without a rate left out)', async () => {
    const fw = await fxWorld(api, 'EUR');
    await putRate(fw, 'USD', '2026-01-01', '0.5');
    await createEntry(fw, { amountCents: 10_000, baseCurrency: 'USD', entryDate: '2026-01-05' }); // 5,000 EUR cents
    await createEntry(fw, { amountCents: 700, baseCurrency: 'EUR', entryDate: '2026-02-05' });
    await createEntry(fw, { amountCents: 10_000, baseCurrency: 'GBP', entryDate: '2026-01-06' }); // no rate
    const monthly = await createBudget(fw, { startDate: '2026-01-01', periods: 2 });
    const m = await report(fw, monthly.id);
    expect(m.body.currency).toBe('EUR');
    expect(m.body.periods.map((p: any) => [p.label, p.to, p.lines[0].actualCents])).toEqual([
      ['2026-01', '2026-01-31', 5_000],
      ['2026-02', '2026-02-28', 700],
    ]);
    const yearly = await createBudget(fw, { period: 'YEAR', startDate: '2026-01-01', periods: 1 });
    expect((await report(fw, yearly.id)).body.periods.map((p: any) => [p.label, p.from, p.to, p.lines[0].actualCents])).toEqual([
      ['2026', '2026-01-01', '2026-12-31', 5_700],
    ]);
  });
});

describe('budget.exceeded', () => {
  it('is published once per line and period, by the entry that took the actual past the budget', async () => {
    const ws = await entryWorld(api);
    const b = await createBudget(ws, {
      periods: 2,
      lines: [
        { entryType: 'EXPENSE', amountCents: 10_000 },
        { entryType: 'INCOME', amountCents: 10_000 },
      ],
    });
    await createEntry(ws, { amountCents: 6_000, entryDate: '2026-01-05' });
    expect(await exceededEvents(ws)).toEqual([]);
    await createEntry(ws, { amountCents: 4_000, entryDate: '2026-01-06' }); // exactly the budget: not past it
    expect(await exceededEvents(ws)).toEqual([]);
    const crossing = await createEntry(ws, { amountCents: 1, entryDate: '2026-01-07' });
    await createEntry(ws, { amountCents: 5_000, entryDate: '2026-01-08' }); // already reported
    const events = await exceededEvents(ws);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'budget.exceeded',
      workspaceId: ws.workspaceId,
      data: { object: { budgetId: b.id, lineIndex: 0, period: '2026-01', budgetCents: 10_000, actualCents: 10_001 } },
    });
    expect(Date.parse(events[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(crossing.createdAt) - 1000);

    // an edit that takes February past it, and a status change back into the counted ones
    const feb = await createEntry(ws, { amountCents: 9_000, entryDate: '2026-02-03' });
    expectOk(await api.patch(`/entries/${feb.id}`, { amountCents: 12_000 }, { token: ws.token }), 'edit');
    const income = await createEntry(ws, { entryType: 'INCOME', amountCents: 20_000, entryDate: '2026-02-04' });
    expect((await exceededEvents(ws)).map((e) => [e.data.object.lineIndex, e.data.object.period])).toEqual([
      [0, '2026-01'],
      [0, '2026-02'],
      [1, '2026-02'],
    ]);
    expect(income.entryStatus).toBe('PENDING');
  });

  it('a rejected entry does not count; moved back to PENDING it does, and publishes then', async () => {
    const ws = await entryWorld(api);
    await createBudget(ws, { lines: [{ entryType: 'EXPENSE', amountCents: 100 }] });
    const e = await createEntry(ws, { amountCents: 50, entryDate: '2026-01-05' });
    expectOk(await setStatus(ws, e.id, 'REJECTED', 'no'), 'reject');
    await createEntry(ws, { amountCents: 60, entryDate: '2026-01-06' });
    expect(await exceededEvents(ws)).toEqual([]);
    expectOk(await setStatus(ws, e.id, 'PENDING'), 'back to pending');
    const events = await exceededEvents(ws);
    expect(events.map((x) => x.data.object.actualCents)).toEqual([110]);
  });

  it('a PATCH of the lines reports a crossing again, against the new lines; a rename does not', async () => {
    const ws = await entryWorld(api);
    const b = await createBudget(ws, { lines: [{ entryType: 'EXPENSE', amountCents: 100 }] });
    await createEntry(ws, { amountCents: 150, entryDate: '2026-01-05' });
    expectOk(await api.patch(`/budgets/${b.id}`, { name: 'Renamed' }, { token: ws.token }), 'rename');
    await createEntry(ws, { amountCents: 10, entryDate: '2026-01-06' }); // that line and period is reported already
    expect(await exceededEvents(ws)).toHaveLength(1);
    expectOk(await api.patch(`/budgets/${b.id}`, { lines: [{ entryType: 'EXPENSE', amountCents: 200 }] }, { token: ws.token }), 'lines');
    await createEntry(ws, { amountCents: 50, entryDate: '2026-01-07' }); // 210 of the new 200
    const events = await exceededEvents(ws);
    expect(events.map((e) => [e.data.object.budgetCents, e.data.object.actualCents])).toEqual([
      [100, 150],
      [200, 210],
    ]);
  });

  it('racing entries publish it once', async () => {
    const ws = await entryWorld(api);
    await createBudget(ws, { lines: [{ entryType: 'EXPENSE', amountCents: 100 }] });
    await createEntry(ws, { amountCents: 101, entryDate: '2026-01-01' });
    await Promise.all(Array.from({ length: 8 }, (_, i) => createEntry(ws, { amountCents: 10 + i, entryDate: '2026-01-02' })));
    expect(await exceededEvents(ws)).toHaveLength(1);
  });
});
