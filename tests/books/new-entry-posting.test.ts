import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgClientConfig } from '../../server/db/database.js';
import { createCategory, createEntry, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { fxWorld, putRate } from '../support/factories/fx.js';
import { startServer, type Api } from '../support/http.js';

/**
 * CONTRACT §23 "What posts": a create without line items is posted by the statement that inserts it (the books'
 * NEW_ENTRY_POSTING), every other create after it (postEntries). Either way the journal must hold what the books'
 * one definition, books_expected_entries, derives: so after each create, books_post_entries over the entry finds
 * nothing to reverse or post (it answers 0), and the entry has exactly one ENTRY transaction.
 */
let api: Api;
let client: pg.Client;
beforeAll(async () => {
  api = await startServer();
  client = new pg.Client(pgClientConfig());
  await client.connect();
});
afterAll(() => client?.end());

/** The entry's journal lines (account, debit, credit) in line order, and how many ENTRY transactions hold them. */
async function journalOf(workspaceId: number, entryId: number) {
  const lines = await client.query(
    `SELECT l.category_id, l.debit_cents::int AS debit, l.credit_cents::int AS credit, l.txn_date::text AS date
       FROM journal_transactions t JOIN journal_lines l ON l.workspace_id = t.workspace_id AND l.transaction_id = t.id
      WHERE t.workspace_id = $1 AND t.entry_id = $2 ORDER BY t.id, l.line_no`,
    [workspaceId, entryId],
  );
  const txns = await client.query(
    `SELECT count(*)::int AS n FROM journal_transactions WHERE workspace_id = $1 AND entry_id = $2 AND kind = 'ENTRY'`,
    [workspaceId, entryId],
  );
  return { lines: lines.rows, transactions: txns.rows[0].n as number };
}

/** What the definition derives for the entry now, in the same shape. */
async function expectedOf(workspaceId: number, entryId: number) {
  const res = await client.query(
    `SELECT x.category_id, x.debit_cents::int AS debit, x.credit_cents::int AS credit, x.txn_date::text AS date
       FROM books_expected_entries($1, ARRAY[$2]::bigint[]) x ORDER BY x.line_no`,
    [workspaceId, entryId],
  );
  return res.rows;
}

/** books_post_entries over the entries: how many journal transactions it had to post or reverse (0: all as expected). */
async function repostCount(workspaceId: number, ids: number[]): Promise<number> {
  const res = await client.query('SELECT books_post_entries($1, $2::bigint[]) AS n', [workspaceId, ids]);
  return res.rows[0].n;
}

async function expectPostedAsDefined(w: EntryWorld, entryId: number) {
  const journal = await journalOf(w.workspaceId, entryId);
  expect(journal.transactions).toBe(1);
  expect(journal.lines).toEqual(await expectedOf(w.workspaceId, entryId));
  expect(journal.lines).toHaveLength(2);
  expect(await repostCount(w.workspaceId, [entryId])).toBe(0);
}

describe('a new entry is posted as the books define it, in its insert or after it (CONTRACT §23)', () => {
  it('the first create of a workspace (whose ledger roles do not exist yet) is posted after its insert', async () => {
    const w = await entryWorld(api);
    const before = await client.query('SELECT count(*)::int AS n FROM ledger_roles WHERE workspace_id = $1', [w.workspaceId]);
    expect(before.rows[0].n).toBe(0);
    const e = await createEntry(w, { amountCents: 1_234 });
    await expectPostedAsDefined(w, e.id);
  });

  it('EXPENSE and INCOME, with a category of their P&L type, of the other type and without, each post their two lines', async () => {
    const w = await entryWorld(api);
    await createEntry(w, { amountCents: 1 }); // the roles exist from here on: the next creates post in their insert
    const sales = await createCategory(w, { code: '4100', accountType: 'REVENUE', name: 'Sales' });
    const rent = await createCategory(w, { code: '6100', accountType: 'EXPENSE', name: 'Rent' });
    const cases = [
      { entryType: 'EXPENSE', amountCents: 10_000 },
      { entryType: 'EXPENSE', amountCents: 2_000, categoryId: rent.id, entryDate: '2026-02-28' },
      { entryType: 'EXPENSE', amountCents: 300, categoryId: sales.id },
      { entryType: 'INCOME', amountCents: 2_500, categoryId: sales.id, entryDate: '2026-03-01' },
      { entryType: 'INCOME', amountCents: 700, categoryId: rent.id },
      { entryType: 'INCOME', amountCents: 99 },
    ];
    for (const c of cases) {
      const e = await createEntry(w, c);
      await expectPostedAsDefined(w, e.id);
      const { lines } = await journalOf(w.workspaceId, e.id);
      expect(lines.map((l) => [l.debit, l.credit])).toEqual([
        [c.amountCents, 0],
        [0, c.amountCents],
      ]);
    }
  });

  it('a foreign-currency entry posts its base amount; one without a rate posts nothing', async () => {
    const w = await fxWorld(api, 'EUR');
    await createEntry(w, { baseCurrency: 'EUR', amountCents: 1 }); // the roles: the next creates post in their insert
    await putRate(w, 'USD', '2026-01-15', '1.25');
    const valued = await createEntry(w, { baseCurrency: 'USD', amountCents: 1_000 });
    expect(valued.amountBaseCents).toBe(1_250); // CONTRACT §17: the amount times the rate
    await expectPostedAsDefined(w, valued.id);
    const unvalued = await createEntry(w, { baseCurrency: 'GBP', amountCents: 1_000 });
    expect(unvalued.amountBaseCents).toBeNull();
    expect(await journalOf(w.workspaceId, unvalued.id)).toEqual({ lines: [], transactions: 0 });
    expect(await repostCount(w.workspaceId, [unvalued.id])).toBe(0);
  });

  it('a create with line items is posted after its insert, split by the items’ accounts', async () => {
    const w = await entryWorld(api);
    await createEntry(w, { amountCents: 1 });
    const a = await createCategory(w, { code: '6200' });
    const e = await createEntry(w, {
      amountCents: 1_000,
      items: [
        { description: 'a', quantity: 1, unitAmountCents: 600, amountCents: 600, categoryId: a.id },
        { description: 'b', quantity: 1, unitAmountCents: 400, amountCents: 400 },
      ],
    });
    const journal = await journalOf(w.workspaceId, e.id);
    expect(journal.transactions).toBe(1);
    expect(journal.lines).toHaveLength(3);
    expect(journal.lines).toEqual(await expectedOf(w.workspaceId, e.id));
    expect(await repostCount(w.workspaceId, [e.id])).toBe(0);
  });

  it('creates written together in one transaction (group commit) are each posted once, as defined', async () => {
    const w = await entryWorld(api);
    await createEntry(w, { amountCents: 1 });
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) => createEntry(w, { amountCents: 100 + i, entryType: i % 2 ? 'INCOME' : 'EXPENSE' })),
    );
    const ids = created.map((e) => e.id);
    for (const id of ids) {
      const journal = await journalOf(w.workspaceId, id);
      expect(journal.transactions).toBe(1);
      expect(journal.lines).toEqual(await expectedOf(w.workspaceId, id));
    }
    expect(await repostCount(w.workspaceId, ids)).toBe(0);
    const verify = await api.get(`/ledger/verify?workspaceId=${w.workspaceId}`, { token: w.token });
    expect(verify.status, verify.text).toBe(200);
    expect(verify.body.ok).toBe(true);
  });
});
