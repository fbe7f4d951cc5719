import { beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../shared/permissions.js';
import { actor, closePeriod, createCategory, createEntry, createKey, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { addProjectMember } from '../support/factories/workspaces.js';
import { db } from '../../server/db/database.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';

/** CONTRACT §23 roles, manual journals, their reversal, verify, bank account openings: each rule over HTTP. */
let api: Api;
let w: EntryWorld;
let cash: any;
let equity: any;
let roles: any;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
  cash = await createCategory(w, { code: '1010', name: 'Cash', accountType: 'ASSET' });
  equity = await createCategory(w, { code: '3300', name: 'Capital', accountType: 'EQUITY' });
});

const journal = (body: Record<string, unknown>, token = w.token) =>
  api.post('/ledger/journal', { workspaceId: w.workspaceId, date: '2026-04-01', description: 'Capital paid in', ...body }, { token });
const twoLines = () => [
  { categoryId: cash.id, debitCents: 50_000 },
  { categoryId: equity.id, creditCents: 50_000, description: 'owner' },
];

/**
 * An entry's amount changed by raw SQL with its triggers off: what the books did not post, for verify to find.
 * Replica mode turns them off for this transaction alone, on plain PostgreSQL and on Citus alike (Citus cannot ALTER a
 * distributed table's triggers; `citus.propagate_set_commands` sets the mode on each worker the transaction reaches,
 * and is an inert placeholder setting without Citus).
 */
async function amountBehindTheCore(entryId: number, cents: number): Promise<void> {
  await db().transaction(async (transaction) => {
    await db().query(`SET LOCAL citus.propagate_set_commands = 'local'`, { transaction });
    await db().query(`SET LOCAL session_replication_role = replica`, { transaction });
    await db().query('UPDATE entries SET amount_cents = :cents, amount_base_cents = :cents WHERE id = :id', {
      replacements: { id: entryId, cents },
      transaction,
    });
  });
}

describe('roles (CONTRACT §23)', () => {
  it('GET creates the missing role accounts (unused codes, active) and returns them', async () => {
    await createCategory(w, { code: '1000', name: 'Taken', accountType: 'ASSET' });
    const res = await api.get('/ledger/roles', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(res.status, res.text).toBe(200);
    roles = res.body;
    expect(Object.keys(roles).sort()).toEqual([
      'BANK',
      'EXPENSE',
      'OPENING_BALANCE',
      'PAYABLE',
      'RECEIVABLE',
      'RETAINED_EARNINGS',
      'REVENUE',
    ]);
    expect(roles.BANK).toMatchObject({ code: '1000-1', accountType: 'ASSET', isActive: true, workspaceId: w.workspaceId });
    expect(roles.PAYABLE.accountType).toBe('LIABILITY');
    expect((await api.get('/ledger/roles', { token: w.token, query: { workspaceId: w.workspaceId } })).body).toEqual(roles);
  });

  it('PUT sets a role to an active category of its type; foreign, inactive or of another type: 400', async () => {
    const res = await api.put('/ledger/roles', { workspaceId: w.workspaceId, roles: { BANK: cash.id } }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.BANK.id).toBe(cash.id);
    expect(res.body.PAYABLE).toEqual(roles.PAYABLE);
    const other = await entryWorld(api);
    const foreign = await createCategory(other, { accountType: 'ASSET' });
    expectErrorBody(
      await api.put('/ledger/roles', { workspaceId: w.workspaceId, roles: { BANK: foreign.id } }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.put('/ledger/roles', { workspaceId: w.workspaceId, roles: { PAYABLE: cash.id } }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    const inactive = await createCategory(w, { accountType: 'ASSET' });
    expect((await api.del(`/accounting/categories/${inactive.id}`, { token: w.token })).status).toBe(200);
    expectErrorBody(
      await api.put('/ledger/roles', { workspaceId: w.workspaceId, roles: { BANK: inactive.id } }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.put('/ledger/roles', { workspaceId: w.workspaceId, roles: { NOPE: cash.id } }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    // back to the created account for the tests below
    expect(
      (await api.put('/ledger/roles', { workspaceId: w.workspaceId, roles: { BANK: roles.BANK.id } }, { token: w.token })).status,
    ).toBe(200);
  });

  it('a role account cannot be deactivated (409)', async () => {
    expectErrorBody(await api.del(`/accounting/categories/${roles.PAYABLE.id}`, { token: w.token }), 409, 'CONFLICT');
    expectErrorBody(
      await api.patch(`/accounting/categories/${roles.PAYABLE.id}`, { isActive: false }, { token: w.token }),
      409,
      'CONFLICT',
    );
  });
});

describe('manual journals (CONTRACT §23)', () => {
  let posted: any;
  it('POST /ledger/journal posts kind MANUAL with its lines and sends journal.posted', async () => {
    const res = await journal({ lines: twoLines() });
    expect(res.status, res.text).toBe(200);
    posted = res.body;
    expect(posted).toMatchObject({
      kind: 'MANUAL',
      date: '2026-04-01',
      description: 'Capital paid in',
      createdBy: w.userId,
      reverses: null,
      reversedBy: null,
    });
    expect(posted.lines.map((l: any) => [l.code, l.debitCents, l.creditCents, l.description])).toEqual([
      ['1010', 50_000, 0, null],
      ['3300', 0, 50_000, 'owner'],
    ]);
    const [events] = await db().query(`SELECT data FROM webhook_events WHERE workspace_id = :ws AND type = 'journal.posted'`, {
      replacements: { ws: w.workspaceId },
    });
    expect((events as any[]).map((e) => e.data.object.id)).toEqual([posted.id]);
  });

  it.each([
    [
      'debits and credits differ',
      () => ({
        lines: [
          { categoryId: cash.id, debitCents: 5 },
          { categoryId: equity.id, creditCents: 4 },
        ],
      }),
    ],
    [
      'a line with both sides',
      () => ({
        lines: [
          { categoryId: cash.id, debitCents: 5, creditCents: 5 },
          { categoryId: equity.id, creditCents: 0 },
        ],
      }),
    ],
    [
      'a zero line',
      () => ({
        lines: [
          { categoryId: cash.id, debitCents: 0 },
          { categoryId: equity.id, creditCents: 0 },
        ],
      }),
    ],
    ['one line', () => ({ lines: [{ categoryId: cash.id, debitCents: 5 }] })],
    ['an empty description', () => ({ description: '', lines: twoLines() })],
  ])('400: %s', async (_, body) => {
    expectErrorBody(await journal(body()), 400, 'BAD_REQUEST');
  });

  it('400 for a foreign or inactive category and for the RECEIVABLE or PAYABLE account', async () => {
    const other = await createCategory(await entryWorld(api), { accountType: 'ASSET' });
    expectErrorBody(
      await journal({
        lines: [
          { categoryId: other.id, debitCents: 5 },
          { categoryId: equity.id, creditCents: 5 },
        ],
      }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await journal({
        lines: [
          { categoryId: roles.RECEIVABLE.id, debitCents: 5 },
          { categoryId: equity.id, creditCents: 5 },
        ],
      }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await journal({
        lines: [
          { categoryId: cash.id, debitCents: 5 },
          { categoryId: roles.PAYABLE.id, creditCents: 5 },
        ],
      }),
      400,
      'BAD_REQUEST',
    );
  });

  it('reverse: a REVERSAL once (409 the second time), dated as asked; only MANUAL (409); 404 when unseen', async () => {
    const res = await api.post(`/ledger/journal/${posted.id}/reverse`, { date: '2026-04-30' }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ kind: 'REVERSAL', date: '2026-04-30', reverses: posted.id });
    expect(res.body.lines.map((l: any) => [l.code, l.debitCents, l.creditCents])).toEqual([
      ['1010', 0, 50_000],
      ['3300', 50_000, 0],
    ]);
    expectErrorBody(await api.post(`/ledger/journal/${posted.id}/reverse`, {}, { token: w.token }), 409, 'CONFLICT');
    expectErrorBody(await api.post(`/ledger/journal/${res.body.id}/reverse`, {}, { token: w.token }), 409, 'CONFLICT');
    const e = await createEntry(w, { amountCents: 300 });
    const [[entryTxn]] = (await db().query('SELECT id FROM journal_transactions WHERE entry_id = :id', {
      replacements: { id: e.id },
    })) as any;
    expectErrorBody(await api.post(`/ledger/journal/${entryTxn.id}/reverse`, {}, { token: w.token }), 409, 'CONFLICT');
    const stranger = await entryWorld(api);
    expectErrorBody(await api.post(`/ledger/journal/${posted.id}/reverse`, {}, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(`/ledger/journal/999999999/reverse`, {}, { token: w.token }), 404, 'NOT_FOUND');
  });

  it('a date in a closed period: 409, for the journal and for its reversal', async () => {
    const open = await journal({ date: '2026-05-02', lines: twoLines() });
    expect(open.status).toBe(200);
    await closePeriod(api, w.token, w.workspaceId, '2026-05-01', '2026-05-31');
    expectErrorBody(await journal({ date: '2026-05-10', lines: twoLines() }), 409, 'CONFLICT');
    expectErrorBody(await api.post(`/ledger/journal/${open.body.id}/reverse`, {}, { token: w.token }), 409, 'CONFLICT');
    const later = await api.post(`/ledger/journal/${open.body.id}/reverse`, { date: '2026-06-01' }, { token: w.token });
    expect(later.status, later.text).toBe(200);
  });
});

describe('bank account openings (CONTRACT §23)', () => {
  it('a non-zero opening balance posts OPENING; a change re-posts it; a ledgerCategoryId not ASSET: 400; into a closed period: 409', async () => {
    const body = { workspaceId: w.workspaceId, name: 'Bank', currency: 'USD', projectId: w.projectId };
    expectErrorBody(await api.post('/bank-accounts', { ...body, ledgerCategoryId: equity.id }, { token: w.token }), 400, 'BAD_REQUEST');
    const res = await api.post(
      '/bank-accounts',
      { ...body, ledgerCategoryId: cash.id, openingBalanceCents: -1_500, openingDate: '2026-06-05' },
      { token: w.token },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.ledgerCategoryId).toBe(cash.id);
    const openings = async () =>
      (
        (await db().query(
          `SELECT t.kind, t.txn_date::text AS date, c.code, l.debit_cents::int AS d, l.credit_cents::int AS c
             FROM journal_transactions t JOIN journal_lines l ON l.workspace_id = t.workspace_id AND l.transaction_id = t.id
             JOIN accounting_categories c ON c.workspace_id = l.workspace_id AND c.id = l.category_id
            WHERE t.workspace_id = :ws AND t.bank_account_id = :id ORDER BY t.id, l.line_no`,
          { replacements: { ws: w.workspaceId, id: res.body.id } },
        )) as any
      )[0];
    expect(await openings()).toEqual([
      { kind: 'OPENING', date: '2026-06-05', code: roles.OPENING_BALANCE.code, d: 1_500, c: 0 },
      { kind: 'OPENING', date: '2026-06-05', code: '1010', d: 0, c: 1_500 },
    ]);
    expect((await api.patch(`/bank-accounts/${res.body.id}`, { openingBalanceCents: 2_000 }, { token: w.token })).status).toBe(200);
    expect((await openings()).slice(2)).toEqual([
      { kind: 'REVERSAL', date: '2026-06-05', code: roles.OPENING_BALANCE.code, d: 0, c: 1_500 },
      { kind: 'REVERSAL', date: '2026-06-05', code: '1010', d: 1_500, c: 0 },
      { kind: 'OPENING', date: '2026-06-05', code: '1010', d: 2_000, c: 0 },
      { kind: 'OPENING', date: '2026-06-05', code: roles.OPENING_BALANCE.code, d: 0, c: 2_000 },
    ]);
    expectErrorBody(await api.patch(`/bank-accounts/${res.body.id}`, { openingDate: '2026-05-20' }, { token: w.token }), 409, 'CONFLICT');
  });
});

describe('verify and access (CONTRACT §23, §19)', () => {
  it('GET /ledger/verify: ok with the entries checked; a mismatch written behind the core is reported', async () => {
    const res = await api.get('/ledger/verify', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.entriesChecked).toBeGreaterThan(0);
    expect(res.body.mismatches).toEqual([]);
    const e = await createEntry(w, { amountCents: 777, entryDate: '2026-07-01' });
    await amountBehindTheCore(e.id, 778);
    const bad = await api.get('/ledger/verify', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(bad.body.ok).toBe(false);
    expect(bad.body.mismatches).toHaveLength(1);
    expect(bad.body.mismatches[0].entryId).toBe(e.id);
    expect(bad.body.mismatches[0].expected[0].lines.map((l: any) => l.debitCents + l.creditCents)).toEqual([778, 778]);
    expect(bad.body.mismatches[0].posted[0].lines.map((l: any) => l.debitCents + l.creditCents)).toEqual([777, 777]);
  });

  it('after PUT /ledger/roles the earlier postings keep their account, later ones use the new one, and verify stays ok', async () => {
    const v = await entryWorld(api);
    const oldPayable = (await api.get('/ledger/roles', { token: v.token, query: { workspaceId: v.workspaceId } })).body.PAYABLE;
    const before = await createEntry(v, { entryType: 'EXPENSE', amountCents: 1_200, entryDate: '2026-03-02' });
    const supplierDebts = await createCategory(v, { code: '2400', name: 'Supplier debts', accountType: 'LIABILITY' });
    const put = await api.put('/ledger/roles', { workspaceId: v.workspaceId, roles: { PAYABLE: supplierDebts.id } }, { token: v.token });
    expect(put.status, put.text).toBe(200);
    const after = await createEntry(v, { entryType: 'EXPENSE', amountCents: 800, entryDate: '2026-03-03' });
    const creditsOf = async (entryId: number) =>
      (
        await db().query(
          `SELECT c.code, l.credit_cents::int AS c FROM journal_lines l JOIN accounting_categories c ON c.workspace_id = l.workspace_id AND c.id = l.category_id
            WHERE l.workspace_id = :ws AND l.entry_id = :entryId AND l.kind = 'ENTRY' AND l.credit_cents > 0 ORDER BY l.id`,
          { replacements: { ws: v.workspaceId, entryId }, type: 'SELECT' },
        )
      ).map((r: any) => `${r.code}:${r.c}`);
    expect(await creditsOf(before.id)).toEqual([`${oldPayable.code}:1200`]);
    expect(await creditsOf(after.id)).toEqual(['2400:800']);
    const verified = await api.get('/ledger/verify', { token: v.token, query: { workspaceId: v.workspaceId } });
    expect(verified.body).toMatchObject({ ok: true, entriesChecked: 2, mismatches: [] });

    // an earlier entry changed now posts with today's roles (its old posting reversed on the old account)
    const patched = await api.patch(`/entries/${before.id}`, { amountCents: 1_300 }, { token: v.token });
    expect(patched.status, patched.text).toBe(200);
    expect(await creditsOf(before.id)).toEqual([`${oldPayable.code}:1200`, '2400:1300']);
    expect((await api.get('/ledger/verify', { token: v.token, query: { workspaceId: v.workspaceId } })).body.ok).toBe(true);

    // what verify exists for is still seen: a posting changed behind the core on the old account
    await amountBehindTheCore(after.id, 9);
    const bad = await api.get('/ledger/verify', { token: v.token, query: { workspaceId: v.workspaceId } });
    expect(bad.body.mismatches.map((m: any) => m.entryId)).toEqual([after.id]);
  });

  it('permissions first (403), project members and keys limited to projects 403, members read the roles', async () => {
    const reader = await actor(api, { workspaceId: w.workspaceId, permissions: [] });
    expect((await api.get('/ledger/roles', { token: reader.token, query: { workspaceId: w.workspaceId } })).status).toBe(200);
    expectErrorBody(await api.get('/ledger/verify', { token: reader.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    expectErrorBody(await journal({ lines: twoLines() }, reader.token), 403, 'FORBIDDEN');
    expectErrorBody(await api.put('/ledger/roles', { workspaceId: w.workspaceId, roles: {} }, { token: reader.token }), 403, 'FORBIDDEN');
    const projectOnly = await actor(api, { permissions: PERMISSIONS });
    await addProjectMember(w.projectId, projectOnly.id);
    for (const res of [
      await api.get('/ledger/roles', { token: projectOnly.token, query: { workspaceId: w.workspaceId } }),
      await api.get('/ledger/verify', { token: projectOnly.token, query: { workspaceId: w.workspaceId } }),
      await journal({ lines: twoLines() }, projectOnly.token),
    ])
      expectErrorBody(res, 403, 'FORBIDDEN');
    const key = await createKey(api, w.token, {
      workspaceId: w.workspaceId,
      permissions: ['accounting.manage'],
      projectIds: [w.projectId],
    });
    expectErrorBody(await journal({ lines: twoLines() }, key.apiKey), 403, 'FORBIDDEN');
    const full = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['accounting.manage'] });
    const byKey = await journal({ lines: twoLines(), date: '2026-06-02' }, full.apiKey);
    expect(byKey.status, byKey.text).toBe(200);
    expect(byKey.body.createdBy).toBeNull();
  });
});
