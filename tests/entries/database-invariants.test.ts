import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgClientConfig } from '../../server/db/database.js';
import { closePeriod, createEntry, type EntryWorld, bankWorld, camt053, imported, type BankWorld } from '../support/factories/index.js';
import { getEntry } from '../support/entries.js';
import { startServer, type Api } from '../support/http.js';
import { lines } from '../banking/helpers.js';

/**
 * Issue 28: PostgreSQL holds the closed-period freeze (CONTRACT §7, migration 0023) and the balance of every bank
 * match (§14, migration 0024), whichever code path writes. Each test writes raw SQL on its own connection — no
 * service in between — that breaks the invariant, and sees the commit fail (and nothing of it stored); the writes
 * the invariant allows commit.
 */
let api: Api;
let client: pg.Client;
beforeAll(async () => {
  api = await startServer();
  client = new pg.Client(pgClientConfig());
  await client.connect();
});
afterAll(() => client?.end());

/** Runs `statements` in one transaction; the error of the statement or of the COMMIT that failed, or null. */
async function commit(...statements: [string, unknown[]?][]): Promise<{ code?: string; constraint?: string; message: string } | null> {
  await client.query('BEGIN');
  try {
    for (const [text, values] of statements) await client.query(text, values);
    await client.query('COMMIT');
    return null;
  } catch (err) {
    await client.query('ROLLBACK');
    return err as { code?: string; constraint?: string; message: string };
  }
}

/** A raw INSERT of an entry like entry $1, dated $2 (replaced by a literal). */
const INSERT_LIKE = `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, entry_status, base_currency, amount_cents,
                                          entry_date, created_at, updated_at)
                     SELECT workspace_id, project_id, entry_source_id, 'EXPENSE', 'PENDING', 'USD', 500, $2, now(), now()
                       FROM entries WHERE id = $1 RETURNING id`;

const row = async (sql: string, values: unknown[]) => (await client.query(sql, values)).rows[0];

describe('the closed-period freeze (CONTRACT §7) at the database', () => {
  let w: EntryWorld;
  let inside: any;
  let outside: any;
  /** an entry written straight into the table (no events, which would hold it by their foreign key) */
  let bare: number;
  const totals = () =>
    row(
      `SELECT count(*)::int AS n, sum(amount_cents)::bigint AS cents FROM entries
        WHERE workspace_id = $1 AND entry_date BETWEEN '2025-03-01' AND '2025-03-31'
          AND entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED')`,
      [w.workspaceId],
    );
  beforeAll(async () => {
    w = (await bankWorld(api)) as EntryWorld;
    inside = await createEntry(w, { entryDate: '2025-03-10', amountCents: 311_774 });
    outside = await createEntry(w, { entryDate: '2025-04-10', amountCents: 1_000 });
    bare = (await row(INSERT_LIKE.replace('$2', "'2025-03-20'"), [outside.id])).id;
    await closePeriod(api, w.token, w.workspaceId, '2025-03-01', '2025-03-31');
  });

  it.each([
    ['a status out of the counted ones', `UPDATE entries SET entry_status = 'CANCELLED', status_reason = 'x' WHERE id = $1`],
    ['its amount', 'UPDATE entries SET amount_cents = amount_cents + 1 WHERE id = $1'],
    ['its base amount', 'UPDATE entries SET amount_base_cents = 1 WHERE id = $1'],
    ['its currency', `UPDATE entries SET base_currency = 'EUR' WHERE id = $1`],
    ['its type', `UPDATE entries SET entry_type = 'INCOME' WHERE id = $1`],
    ['its date, out of the period', `UPDATE entries SET entry_date = '2025-04-01' WHERE id = $1`],
    ['its party', 'UPDATE entries SET from_party_id = NULL WHERE id = $1'],
  ])('refuses an UPDATE of %s of an entry dated in it', async (_what, sql) => {
    const before = await totals();
    const err = await commit([sql, [inside.id]]);
    expect(err).toMatchObject({ code: '23514', constraint: 'entry_closed_period' });
    expect(await totals()).toEqual(before);
  });

  it('refuses moving an entry into it, inserting one dated in it and deleting one', async () => {
    const before = await totals();
    expect(await commit([`UPDATE entries SET entry_date = '2025-03-31' WHERE id = $1`, [outside.id]])).toMatchObject({
      constraint: 'entry_closed_period',
    });
    expect(await commit([INSERT_LIKE.replace('$2', "'2025-03-01'"), [outside.id]])).toMatchObject({ constraint: 'entry_closed_period' });
    expect(await commit(['DELETE FROM entries WHERE id = $1', [bare]])).toMatchObject({ constraint: 'entry_closed_period' });
    expect(await totals()).toEqual(before);
    expect((await getEntry(w, outside.id)).entryDate).toBe('2025-04-10');
  });

  it('lets through what moves no total: counted ↔ counted, reconciling, description; and any write outside it', async () => {
    const before = await totals();
    expect(await commit([`UPDATE entries SET entry_status = 'UNDER_REVIEW' WHERE id = $1`, [inside.id]])).toBeNull();
    expect(await commit([`UPDATE entries SET is_reconciled = true, reconciled_at = now() WHERE id = $1`, [inside.id]])).toBeNull();
    expect(await commit([`UPDATE entries SET description = 'renamed' WHERE id = $1`, [inside.id]])).toBeNull();
    expect(await commit(['UPDATE entries SET amount_cents = 2_000 WHERE id = $1', [outside.id]])).toBeNull();
    expect(await totals()).toEqual(before);
  });

  it('the one SQL definition answers the service too: the name of the closed period, NULL outside, bounds inclusive', async () => {
    const at = async (day: string) => (await row('SELECT closed_period_name($1, $2::date) AS name', [w.workspaceId, day])).name;
    expect(await at('2025-03-01')).toBe('2025-03-01..2025-03-31');
    expect(await at('2025-03-31')).toBe('2025-03-01..2025-03-31');
    expect(await at('2025-02-28')).toBeNull();
    expect(await at('2025-04-01')).toBeNull();
  });
});

describe('the balance of every bank match (CONTRACT §14) at the database, checked at commit', () => {
  let w: BankWorld;
  let matchId: string;
  let entries: any[];
  let line: any;
  beforeAll(async () => {
    w = await bankWorld(api);
    await imported(
      w,
      camt053([{ date: '2026-01-07', amount: '-150.00', name: 'Supplier', memo: 'two invoices', id: `L-${randomUUID()}` }]),
    );
    [line] = await lines(w);
    entries = [
      await createEntry(w, { baseCurrency: 'EUR', amountCents: 10_000, entryDate: '2026-01-06' }),
      await createEntry(w, { baseCurrency: 'EUR', amountCents: 5_000, entryDate: '2026-01-06' }),
    ];
    const res = await w.api.post('/reconciliation/matches', { lineIds: [line.id], entryIds: entries.map((e) => e.id) }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    matchId = res.body.id;
  });

  const standing = async () => ({
    match: (await row('SELECT count(*)::int AS n FROM bank_matches WHERE id = $1', [matchId])).n,
    entries: (
      await row('SELECT array_agg(entry_id ORDER BY entry_id)::bigint[] AS ids FROM bank_match_entries WHERE match_id = $1', [matchId])
    ).ids,
    amounts: (
      await row('SELECT array_agg(amount_cents ORDER BY id)::bigint[] AS a FROM entries WHERE id = ANY($1::bigint[])', [
        entries.map((e) => e.id),
      ])
    ).a,
    line: await row('SELECT status, match_id FROM bank_lines WHERE id = $1', [line.id]),
  });

  it.each([
    ['an entry’s amount', 'UPDATE entries SET amount_cents = 9_999 WHERE id = $1'],
    ['an entry’s type', `UPDATE entries SET entry_type = 'INCOME' WHERE id = $1`],
    ['an entry’s currency', `UPDATE entries SET base_currency = 'USD' WHERE id = $1`],
    ['an entry → CANCELLED', `UPDATE entries SET entry_status = 'CANCELLED', status_reason = 'x' WHERE id = $1`],
    ['an entry → REJECTED', `UPDATE entries SET entry_status = 'REJECTED', status_reason = 'x' WHERE id = $1`],
    ['an entry → VOIDED', `UPDATE entries SET entry_status = 'VOIDED', status_reason = 'x' WHERE id = $1`],
    ['an entry leaving the match', 'DELETE FROM bank_match_entries WHERE entry_id = $1'],
  ])('refuses at commit %s', async (_what, sql) => {
    const before = await standing();
    const err = await commit([sql, [entries[0].id]]);
    expect(err).toMatchObject({ code: '23514', constraint: 'bank_match_balance' });
    expect(await standing()).toEqual(before);
  });

  it('refuses at commit a line leaving the match, or its amount changing, and an entry joining it', async () => {
    const before = await standing();
    expect(await commit([`UPDATE bank_lines SET status = 'UNMATCHED', match_id = NULL WHERE id = $1`, [line.id]])).toMatchObject({
      constraint: 'bank_match_balance',
    });
    expect(await commit(['UPDATE bank_lines SET amount_cents = -15_001 WHERE id = $1', [line.id]])).toMatchObject({
      constraint: 'bank_match_balance',
    });
    const third = await createEntry(w, { baseCurrency: 'EUR', amountCents: 1 });
    expect(
      await commit(
        [`UPDATE entries SET is_reconciled = true, reconciled_at = now() WHERE id = $1`, [third.id]],
        ['INSERT INTO bank_match_entries (match_id, entry_id, workspace_id) VALUES ($1, $2, $3)', [matchId, third.id, w.workspaceId]],
      ),
    ).toMatchObject({ constraint: 'bank_match_balance' });
    expect(await standing()).toEqual(before);
  });

  /** A new unmatched line of `amount` (a camt.053 amount: "-150.00") and a new reconciled EUR expense of `cents`. */
  async function freshPair(amount: string, cents: number): Promise<{ lineId: number; entryId: number }> {
    const ref = `L-${randomUUID()}`;
    await imported(w, camt053([{ date: '2026-01-08', amount, name: 'Supplier', memo: ref, id: ref }]));
    const line = (await lines(w)).find((l) => l.status === 'UNMATCHED' && l.externalId === ref);
    const entry = await createEntry(w, { baseCurrency: 'EUR', amountCents: cents, entryDate: '2026-01-08' });
    await client.query('UPDATE entries SET is_reconciled = true, reconciled_at = now() WHERE id = $1', [entry.id]);
    return { lineId: line.id, entryId: entry.id };
  }
  /** One statement writing a whole match of the line and the entry, as auto-match does (checked once at commit: 0044). */
  const ONE_STATEMENT_MATCH = `
    WITH m AS (INSERT INTO bank_matches (id, workspace_id, bank_account_id, method) VALUES ($1, $2, $3, 'AUTO')),
         me AS (INSERT INTO bank_match_entries (match_id, entry_id, workspace_id) VALUES ($1, $5, $2))
    UPDATE bank_lines SET status = 'MATCHED', match_id = $1 WHERE id = $4`;
  const matchInOneStatement = (id: string, pair: { lineId: number; entryId: number }): [string, unknown[]] => [
    ONE_STATEMENT_MATCH,
    [id, w.workspaceId, w.account.id, pair.lineId, pair.entryId],
  ];
  /** One statement adding the line and the entry of `pair` to the existing match `id`. */
  const joinInOneStatement = (id: string, pair: { lineId: number; entryId: number }): [string, unknown[]] => [
    `WITH me AS (INSERT INTO bank_match_entries (match_id, entry_id, workspace_id) VALUES ($1, $3, $4))
     UPDATE bank_lines SET status = 'MATCHED', match_id = $1 WHERE id = $2`,
    [id, pair.lineId, pair.entryId, w.workspaceId],
  ];
  const lineOf = async (id: number) => row('SELECT status, match_id FROM bank_lines WHERE id = $1', [id]);

  it('refuses at commit an unbalanced match written in one statement, line and entry together; a balanced one commits', async () => {
    const pair = await freshPair('-150.00', 14_999);
    expect(await commit(matchInOneStatement(randomUUID(), pair))).toMatchObject({ code: '23514', constraint: 'bank_match_balance' });
    expect(await lineOf(pair.lineId)).toEqual({ status: 'UNMATCHED', match_id: null });

    const balanced = await freshPair('-150.00', 15_000);
    const id = randomUUID();
    expect(await commit(matchInOneStatement(id, balanced))).toBeNull();
    expect(await lineOf(balanced.lineId)).toEqual({ status: 'MATCHED', match_id: id });
  });

  it('refuses a line joining a match in a later statement than the one that wrote the match, its checks set immediate or not', async () => {
    for (const immediate of [false, true]) {
      const pair = await freshPair('-40.00', 4_000);
      const second = await freshPair('-1.00', 1);
      const id = randomUUID();
      const err = await commit(
        ...(immediate ? [['SET CONSTRAINTS bank_match_balance IMMEDIATE'] as [string]] : []),
        matchInOneStatement(id, pair),
        [`UPDATE bank_lines SET status = 'MATCHED', match_id = $1 WHERE id = $2`, [id, second.lineId]],
      );
      expect(err, `immediate: ${immediate}`).toMatchObject({ code: '23514', constraint: 'bank_match_balance' });
      expect(await lineOf(pair.lineId)).toEqual({ status: 'UNMATCHED', match_id: null });
    }
  });

  it('refuses a line and an entry of different amounts joining an existing match in one statement', async () => {
    const pair = await freshPair('-25.00', 2_500);
    const id = randomUUID();
    expect(await commit(matchInOneStatement(id, pair))).toBeNull();
    const extra = await freshPair('-3.00', 299);
    const err = await commit(joinInOneStatement(id, extra));
    expect(err).toMatchObject({ code: '23514', constraint: 'bank_match_balance' });
    expect(await lineOf(extra.lineId)).toEqual({ status: 'UNMATCHED', match_id: null });
  });

  it('refuses a line inserted into a match and a matched line deleted', async () => {
    const pair = await freshPair('-30.00', 3_000);
    const id = randomUUID();
    expect(await commit(matchInOneStatement(id, pair))).toBeNull();
    const err = await commit([
      `INSERT INTO bank_lines (workspace_id, bank_account_id, statement_id, booking_date, amount_cents, currency, fingerprint, status, match_id)
       SELECT workspace_id, bank_account_id, statement_id, booking_date, -1, currency, fingerprint || '-again', 'MATCHED', match_id
         FROM bank_lines WHERE id = $1`,
      [pair.lineId],
    ]);
    expect(err, 'inserted into the match').toMatchObject({ code: '23514', constraint: 'bank_match_balance' });
    expect(await commit(['DELETE FROM bank_lines WHERE id = $1', [pair.lineId]]), 'deleted from the match').toMatchObject({
      code: '23514',
      constraint: 'bank_match_balance',
    });
    expect(await lineOf(pair.lineId)).toEqual({ status: 'MATCHED', match_id: id });
  });

  it('refuses an entry moved from one match to another: the match it left is checked too', async () => {
    const left = await freshPair('-60.00', 6_000);
    const leftId = randomUUID();
    expect(await commit(matchInOneStatement(leftId, left))).toBeNull();
    const moved = await freshPair('-0.01', 1);
    expect(await commit(joinInOneStatement(leftId, moved))).toBeNull();
    // the match it joins balances with it (60.01 each side), the one it leaves no longer does (60.01 against 60.00)
    const joined = await freshPair('-60.01', 6_000);
    const err = await commit(matchInOneStatement(randomUUID(), joined), [
      'UPDATE bank_match_entries SET match_id = (SELECT match_id FROM bank_lines WHERE id = $1) WHERE entry_id = $2',
      [joined.lineId, moved.entryId],
    ]);
    expect(err).toMatchObject({ code: '23514', constraint: 'bank_match_balance' });
    expect(await row('SELECT match_id FROM bank_match_entries WHERE entry_id = $1', [moved.entryId])).toEqual({ match_id: leftId });
  });

  it('checks what a transaction still holds after a savepoint rolled back, and nothing of what the savepoint undid', async () => {
    const kept = await freshPair('-7.00', 699);
    const err = await commit(
      matchInOneStatement(randomUUID(), kept),
      ['SAVEPOINT s'],
      [`UPDATE entries SET description = 'inside the savepoint' WHERE id = $1`, [kept.entryId]],
      ['ROLLBACK TO SAVEPOINT s'],
    );
    expect(err, 'the unbalanced match written before the savepoint').toMatchObject({ constraint: 'bank_match_balance' });

    const undone = await freshPair('-7.00', 699);
    expect(
      await commit(['SAVEPOINT s'], matchInOneStatement(randomUUID(), undone), ['ROLLBACK TO SAVEPOINT s']),
      'the unbalanced match undone with its savepoint',
    ).toBeNull();
    expect(await lineOf(undone.lineId)).toEqual({ status: 'UNMATCHED', match_id: null });
    expect((await row('SELECT count(*)::int AS n FROM bank_match_checks', [])).n, 'no row outlives its transaction').toBe(0);
  });

  it('checks each transaction’s own matches: one committing beside another’s open unbalanced match neither waits nor takes it', async () => {
    const other = new pg.Client(pgClientConfig());
    await other.connect();
    try {
      const unbalanced = await freshPair('-9.00', 899);
      await other.query('BEGIN');
      const [text, values] = matchInOneStatement(randomUUID(), unbalanced);
      await other.query(text, values);

      const balanced = await freshPair('-9.00', 900);
      const id = randomUUID();
      await client.query('SET statement_timeout = 5000'); // a wait on the other's rows would fail here, not hang
      expect(await commit(matchInOneStatement(id, balanced))).toBeNull();
      await client.query('RESET statement_timeout');
      expect(await lineOf(balanced.lineId)).toEqual({ status: 'MATCHED', match_id: id });

      await expect(other.query('COMMIT')).rejects.toMatchObject({ constraint: 'bank_match_balance' });
      expect(await lineOf(unbalanced.lineId)).toEqual({ status: 'UNMATCHED', match_id: null });
    } finally {
      await other.end();
    }
  });

  it('commits a change that keeps it balanced (amounts moved between its entries), and a whole dissolve', async () => {
    const ids = entries.map((e) => e.id);
    expect(
      await commit(
        ['UPDATE entries SET amount_cents = 12_000 WHERE id = $1', [ids[0]]],
        ['UPDATE entries SET amount_cents = 3_000 WHERE id = $1', [ids[1]]],
      ),
    ).toBeNull();
    expect(
      await commit(
        [`UPDATE bank_lines SET status = 'UNMATCHED', match_id = NULL WHERE match_id = $1`, [matchId]],
        ['DELETE FROM bank_match_entries WHERE match_id = $1', [matchId]],
        ['DELETE FROM bank_matches WHERE id = $1', [matchId]],
        ['UPDATE entries SET is_reconciled = false, reconciled_at = NULL, reconciled_by = NULL WHERE id = ANY($1::bigint[])', [ids]],
      ),
    ).toBeNull();
  });
});
