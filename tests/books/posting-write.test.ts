import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgClientConfig } from '../../server/db/database.js';
import {
  bankWorld,
  camt053,
  closePeriod,
  createCategory,
  createEntry,
  entryWorld,
  imported,
  type BankWorld,
  type EntryWorld,
} from '../support/factories/index.js';
import { fxWorld, putRate } from '../support/factories/fx.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { lines as bankLines } from '../banking/helpers.js';

/**
 * CONTRACT §23 "What posts", "Settlement", "Changes never edit lines": what the ledger core posts, in the
 * transaction of each change, read straight from the journal tables. The expected lines are written here from the
 * contract's words.
 */
let api: Api;
let client: pg.Client;
beforeAll(async () => {
  api = await startServer();
  client = new pg.Client(pgClientConfig());
  await client.connect();
});
afterAll(() => client?.end());

type Line = { kind: string; date: string; code: string; debit: number; credit: number; reverses: boolean };

/** Every line an entry posted, in posting order: kind, date, account code, debit, credit. */
async function posted(entryId: number): Promise<Line[]> {
  const res = await client.query(
    `SELECT t.kind, t.txn_date::text AS date, c.code, l.debit_cents::int AS debit, l.credit_cents::int AS credit, t.reverses IS NOT NULL AS reverses
       FROM journal_transactions t JOIN journal_lines l ON l.workspace_id = t.workspace_id AND l.transaction_id = t.id JOIN accounting_categories c ON c.workspace_id = l.workspace_id AND c.id = l.category_id
      WHERE t.entry_id = $1 ORDER BY t.id, l.line_no`,
    [entryId],
  );
  return res.rows;
}

/** The live balance (debits − credits) of each account code of the workspace, from the kept month balances. */
async function balances(workspaceId: number): Promise<Record<string, number>> {
  const res = await client.query(
    `SELECT c.code, sum(b.debit_cents - b.credit_cents)::int AS balance FROM ledger_balances b JOIN accounting_categories c ON c.workspace_id = b.workspace_id AND c.id = b.category_id
      WHERE b.workspace_id = $1 GROUP BY c.code HAVING sum(b.debit_cents - b.credit_cents) <> 0`,
    [workspaceId],
  );
  return Object.fromEntries(res.rows.map((r) => [r.code, r.balance]));
}

const line = (kind: string, date: string, code: string, debit: number, credit: number, reverses = false): Line => ({
  kind,
  date,
  code,
  debit,
  credit,
  reverses,
});

describe('posting from entries (CONTRACT §23)', () => {
  let w: EntryWorld;
  beforeAll(async () => {
    w = await entryWorld(api);
  });

  it('an EXPENSE posts debit EXPENSE, credit PAYABLE; an INCOME with a revenue category debit RECEIVABLE, credit it', async () => {
    const e = await createEntry(w, { amountCents: 10_000 });
    expect(await posted(e.id)).toEqual([line('ENTRY', '2026-01-15', '6000', 10_000, 0), line('ENTRY', '2026-01-15', '2000', 0, 10_000)]);
    const sales = await createCategory(w, { code: '4100', accountType: 'REVENUE', name: 'Sales' });
    const i = await createEntry(w, { entryType: 'INCOME', amountCents: 2_500, categoryId: sales.id, entryDate: '2026-01-20' });
    expect(await posted(i.id)).toEqual([line('ENTRY', '2026-01-20', '1200', 2_500, 0), line('ENTRY', '2026-01-20', '4100', 0, 2_500)]);
    // a category of the other type posts to the role account
    const i2 = await createEntry(w, { entryType: 'INCOME', amountCents: 700, categoryId: (await createCategory(w, { code: '6100' })).id });
    expect((await posted(i2.id)).map((l) => l.code)).toEqual(['1200', '4000']);
  });

  it('line items with categories split the revenue or expense side per account', async () => {
    const a = await createCategory(w, { code: '6200' });
    const b = await createCategory(w, { code: '6300' });
    const e = await createEntry(w, {
      amountCents: 1_000,
      items: [
        { description: 'a', quantity: 1, unitAmountCents: 300, amountCents: 300, categoryId: a.id },
        { description: 'b', quantity: 1, unitAmountCents: 200, amountCents: 200, categoryId: b.id },
        { description: 'c', quantity: 1, unitAmountCents: 100, amountCents: 100, categoryId: a.id },
        { description: 'd', quantity: 1, unitAmountCents: 400, amountCents: 400 },
      ],
    });
    expect(await posted(e.id)).toEqual([
      line('ENTRY', '2026-01-15', '6200', 400, 0),
      line('ENTRY', '2026-01-15', '6300', 200, 0),
      line('ENTRY', '2026-01-15', '6000', 400, 0),
      line('ENTRY', '2026-01-15', '2000', 0, 1_000),
    ]);
  });

  it('a change reverses the posting it replaces and posts anew; leaving the counted statuses reverses only', async () => {
    const e = await createEntry(w, { amountCents: 900, entryDate: '2026-02-01' });
    expect((await api.patch(`/entries/${e.id}`, { amountCents: 950, entryDate: '2026-02-03' }, { token: w.token })).status).toBe(200);
    expect((await api.patch(`/entries/${e.id}`, { description: 'no posting change' }, { token: w.token })).status).toBe(200);
    const res = await api.patch(`/entries/${e.id}/status`, { status: 'CANCELLED', reason: 'x' }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(await posted(e.id)).toEqual([
      line('ENTRY', '2026-02-01', '6000', 900, 0),
      line('ENTRY', '2026-02-01', '2000', 0, 900),
      line('REVERSAL', '2026-02-01', '6000', 0, 900, true),
      line('REVERSAL', '2026-02-01', '2000', 900, 0, true),
      line('ENTRY', '2026-02-03', '6000', 950, 0),
      line('ENTRY', '2026-02-03', '2000', 0, 950),
      line('REVERSAL', '2026-02-03', '6000', 0, 950, true),
      line('REVERSAL', '2026-02-03', '2000', 950, 0, true),
    ]);
  });

  it('the kept balances agree with the lines', async () => {
    const sums = await client.query(
      `SELECT category_id, sum(debit_cents)::bigint AS d, sum(credit_cents)::bigint AS c FROM journal_lines WHERE workspace_id = $1 GROUP BY 1 ORDER BY 1`,
      [w.workspaceId],
    );
    const kept = await client.query(
      `SELECT category_id, sum(debit_cents)::bigint AS d, sum(credit_cents)::bigint AS c FROM ledger_balances WHERE workspace_id = $1 GROUP BY 1 ORDER BY 1`,
      [w.workspaceId],
    );
    expect(kept.rows).toEqual(sums.rows);
    expect(sums.rows.length).toBeGreaterThan(3);
    const byDay = await client.query(
      `SELECT category_id, txn_date::text AS day, sum(debit_cents)::bigint AS d, sum(credit_cents)::bigint AS c
         FROM journal_lines WHERE workspace_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [w.workspaceId],
    );
    const keptByDay = await client.query(
      `SELECT category_id, day::text, debit_cents AS d, credit_cents AS c FROM ledger_day_balances WHERE workspace_id = $1 ORDER BY 1, 2`,
      [w.workspaceId],
    );
    expect(keptByDay.rows).toEqual(byDay.rows);
    expect(new Set(byDay.rows.map((r) => r.day)).size).toBeGreaterThan(1);
  });
});

describe('valuation (CONTRACT §17, §23)', () => {
  it('an entry without a base amount posts nothing until it is valued; items are converted and rounded half away from zero', async () => {
    const w = await fxWorld(api, 'USD');
    const a = await createCategory(w as EntryWorld, { code: '6200' });
    const b = await createCategory(w as EntryWorld, { code: '6300' });
    const body = {
      baseCurrency: 'EUR',
      amountCents: 1_001,
      entryDate: '2026-03-10',
      items: [
        { description: 'a', quantity: 1, unitAmountCents: 5, amountCents: 5, categoryId: a.id },
        { description: 'b', quantity: 1, unitAmountCents: 996, amountCents: 996, categoryId: b.id },
      ],
    };
    const e = await createEntry(w as EntryWorld, body);
    expect(await posted(e.id)).toEqual([]);
    await putRate(w, 'EUR', '2026-03-09', '1.1');
    const res = await api.post(
      '/fx-rates/revalue',
      { workspaceId: w.workspaceId, fromDate: '2026-03-01', toDate: '2026-03-31' },
      { token: w.token },
    );
    expect(res.status, res.text).toBe(200);
    // A = 1001 × 1.1 = 1101.1 → 1101 (half to even); items 5.5 → 6, 1095.6 → 1096: 1102, one cent too many, off the largest
    expect(await posted(e.id)).toEqual([
      line('ENTRY', '2026-03-10', '6200', 6, 0),
      line('ENTRY', '2026-03-10', '6300', 1_095, 0),
      line('ENTRY', '2026-03-10', '2000', 0, 1_101),
    ]);
  });
});

describe('settlement (CONTRACT §23)', () => {
  let w: BankWorld;
  beforeAll(async () => {
    w = await bankWorld(api, { currency: 'USD' });
  });

  it('a bank match settles the entry on the latest line date; an unmatch reverses it', async () => {
    await imported(w, camt053([{ date: '2026-01-20', amount: '-25.00', id: 'S1' }], { currency: 'USD' }));
    const [l] = await bankLines(w);
    const e = await createEntry(w, { amountCents: 2_500, entryDate: '2026-01-18' });
    const m = await api.post('/reconciliation/matches', { lineIds: [l.id], entryIds: [e.id] }, { token: w.token });
    expect(m.status, m.text).toBe(200);
    expect((await posted(e.id)).slice(2)).toEqual([
      line('SETTLEMENT', '2026-01-20', '2000', 2_500, 0),
      line('SETTLEMENT', '2026-01-20', '1000', 0, 2_500),
    ]);
    expect((await api.del(`/reconciliation/matches/${m.body.id}`, { token: w.token })).status).toBe(200);
    expect((await posted(e.id)).slice(4)).toEqual([
      line('REVERSAL', '2026-01-20', '2000', 0, 2_500, true),
      line('REVERSAL', '2026-01-20', '1000', 2_500, 0, true),
    ]);
  });

  it('a settlement dated in a closed period moves to the first day after it; a change posting into one is 409', async () => {
    await imported(w, camt053([{ date: '2025-06-10', amount: '30.00', id: 'S2' }], { currency: 'USD' }));
    const l = (await bankLines(w)).find((x: any) => x.bookingDate === '2025-06-10');
    const e = await createEntry(w, { entryType: 'INCOME', amountCents: 3_000, entryDate: '2025-06-09' });
    await closePeriod(api, w.token, w.workspaceId, '2025-06-01', '2025-06-30');
    const m = await api.post('/reconciliation/matches', { lineIds: [l.id], entryIds: [e.id] }, { token: w.token });
    expect(m.status, m.text).toBe(200);
    expect((await posted(e.id)).slice(2)).toEqual([
      line('SETTLEMENT', '2025-07-01', '1000', 3_000, 0),
      line('SETTLEMENT', '2025-07-01', '1200', 0, 3_000),
    ]);
    // the entry's category would move its ENTRY posting, dated in the closed period
    const sales = await createCategory(w, { code: '4100', accountType: 'REVENUE' });
    expectErrorBody(await api.patch(`/entries/${e.id}`, { categoryId: sales.id }, { token: w.token }), 409, 'CONFLICT');
  });

  it('the books balance: every account sums to zero across the workspace', async () => {
    const b = await balances(w.workspaceId);
    expect(Object.values(b).reduce((s, x) => s + x, 0)).toBe(0);
  });
});
