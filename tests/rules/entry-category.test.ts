import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Api } from '../support/http.js';
import { createEntry, createCategory, syncWorld, type SyncWorld, condition } from '../support/factories/index.js';
import { expectOkBody, push, startEmulators, stopEmulators, type Emulators } from '../accounting/sync/helpers.js';

/**
 * The entry's own categoryId (CONTRACT §16): the category sent on push — the generic adapter's
 * categoryExternalId, QuickBooks' AccountRef — and not a column of the CSV export.
 */

let api: Api;
let e: Emulators;

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
});
afterAll(() => stopEmulators(e));

/** An entry whose category a rule set (apply), in a world with a connection of `kind`. */
async function categorisedEntry(w: SyncWorld, externalId: string, overrides: Record<string, unknown> = {}) {
  const category = await createCategory(w, { name: 'Travel', externalId });
  const entry = await createEntry(w, {
    description: `trip ${externalId.length}-${externalId.charCodeAt(externalId.length - 1)}`,
    ...overrides,
  });
  const rule = await api.post(
    '/rules',
    {
      workspaceId: w.workspaceId,
      name: 'Trips',
      conditions: [condition('description', 'equals', `trip ${externalId.length}-${externalId.charCodeAt(externalId.length - 1)}`)],
      actions: [{ type: 'SET_CATEGORY', categoryId: category.id }],
    },
    { token: w.token },
  );
  expect((await api.post(`/rules/${rule.body.id}/apply`, {}, { token: w.token })).body.changed).toBe(1);
  return entry;
}

describe('the entry category on push', () => {
  it('generic adapter: categoryExternalId is the externalId of the entry’s category', async () => {
    const w = await syncWorld(api, 'GENERIC', e);
    const entry = await categorisedEntry(w, 'acc-travel');
    const preview = expectOkBody(await push(w, entry.id, { dryRun: true }));
    expect(preview.request.body.categoryExternalId).toBe('acc-travel');
    expectOkBody(await push(w, entry.id));
    expect(e.generic.creates().at(-1)!.body.categoryExternalId).toBe('acc-travel');
    const plain = await createEntry(w, { description: 'no category' });
    expect(expectOkBody(await push(w, plain.id, { dryRun: true })).request.body.categoryExternalId).toBeNull();
  });

  it('QuickBooks: the account of the expense line (AccountRef) and of the deposit line', async () => {
    const w = await syncWorld(api, 'QUICKBOOKS', e);
    e.qb.accounts.push(
      { Id: '77', Name: 'Travel', AccountType: 'Expense', Classification: 'Expense', AcctNum: '6300', Active: true },
      { Id: '78', Name: 'Licences', AccountType: 'Income', Classification: 'Revenue', AcctNum: '4200', Active: true },
    );
    const expense = await categorisedEntry(w, '77');
    const income = await categorisedEntry(w, '78', { entryType: 'INCOME' });
    const pushed = expectOkBody(await push(w, expense.id));
    expect(pushed.status, JSON.stringify(pushed)).toBe('SYNCED');
    const purchase = e.qb.purchases.get(pushed.externalId)!;
    expect(purchase.Line[0]).toMatchObject({ AccountBasedExpenseLineDetail: { AccountRef: { value: '77' } } });
    const deposit = e.qb.deposits.get(expectOkBody(await push(w, income.id)).externalId)!;
    expect(deposit.Line[0]).toMatchObject({ DepositLineDetail: { AccountRef: { value: '78' } } });
  });

  it('is not in the CSV export', async () => {
    const w = await syncWorld(api, 'GENERIC', e);
    await categorisedEntry(w, 'acc-csv');
    const res = await api.get('/entries/export/csv', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(res.status).toBe(200);
    expect(res.text.split('\r\n')[0].replace(/^\uFEFF/, '')).toBe(
      'ID,Date,Type,Status,Amount,Currency,Description,Reference,From Party,To Party,Reconciled,Tags',
    );
    expect(res.text).not.toContain('acc-csv');
  });
});
