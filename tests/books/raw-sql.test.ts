import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgClientConfig } from '../../server/db/database.js';
import { postgresErrorOf } from '../../server/lib/errors.js';
import { closePeriod, type EntryWorld, bankWorld } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/**
 * CONTRACT §23 "held by PostgreSQL": each test writes raw SQL on its own connection, no service in between, that
 * breaks a rule of the books, and sees the statement or the COMMIT fail with nothing stored; what the rules allow
 * commits.
 */
let api: Api;
let client: pg.Client;
let w: EntryWorld;
let cats: string[];
beforeAll(async () => {
  api = await startServer();
  client = new pg.Client(pgClientConfig());
  await client.connect();
  w = (await bankWorld(api)) as EntryWorld;
  const ids = await client.query(
    `INSERT INTO accounting_categories (workspace_id, code, name, account_type)
     VALUES ($1, 'RAW-A', 'Raw asset', 'ASSET'), ($1, 'RAW-E', 'Raw equity', 'EQUITY') RETURNING id`,
    [w.workspaceId],
  );
  cats = ids.rows.map((r) => r.id);
  await closePeriod(api, w.token, w.workspaceId, '2024-03-01', '2024-03-31');
});
afterAll(() => client?.end());

type PgError = { code?: string; constraint?: string; message: string };
async function commit(...statements: [string, unknown[]?][]): Promise<PgError | null> {
  await client.query('BEGIN');
  try {
    for (const [text, values] of statements) await client.query(text, values);
    await client.query('COMMIT');
    return null;
  } catch (err) {
    await client.query('ROLLBACK');
    // Citus relays a worker's error without its constraint name: read it from the message as the service does (CONTRACT §24)
    return postgresErrorOf({ parent: err }) as PgError;
  }
}

const txn = (date: string) =>
  `INSERT INTO journal_transactions (workspace_id, kind, txn_date, description) VALUES ($1, 'MANUAL', '${date}', 'raw') RETURNING id`;
/** A line of the newest raw transaction, dated `daysAfter` days after it (0: its own date, as the rule asks). */
const line = (no: number, cat: 0 | 1, debit: number, credit: number, daysAfter = 0) =>
  `INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, txn_date, kind)
   SELECT id, $1, ${no}, $2, ${debit}, ${credit}, txn_date + ${daysAfter}, 'MANUAL' FROM journal_transactions
    WHERE workspace_id = $1 AND description = 'raw' ORDER BY id DESC LIMIT 1`;
const count = async () =>
  Number((await client.query(`SELECT count(*) AS n FROM journal_transactions WHERE workspace_id = $1`, [w.workspaceId])).rows[0].n);

describe('the books at the database (CONTRACT §23)', () => {
  it('a balanced transaction commits and moves the month and day balances', async () => {
    const before = await count();
    expect(
      await commit(
        [txn('2024-05-02'), [w.workspaceId]],
        [line(1, 0, 700, 0), [w.workspaceId, cats[0]]],
        [line(2, 1, 0, 700), [w.workspaceId, cats[1]]],
      ),
    ).toBeNull();
    expect(await count()).toBe(before + 1);
    const kept = async (table: 'ledger_balances' | 'ledger_day_balances', period: 'month' | 'day') =>
      (
        await client.query(
          `SELECT category_id, ${period}::text AS period, debit_cents::int AS d, credit_cents::int AS c FROM ${table}
            WHERE workspace_id = $1 AND category_id = ANY($2) ORDER BY debit_cents DESC`,
          [w.workspaceId, cats],
        )
      ).rows;
    expect(await kept('ledger_balances', 'month')).toEqual([
      { category_id: cats[0], period: '2024-05-01', d: 700, c: 0 },
      { category_id: cats[1], period: '2024-05-01', d: 0, c: 700 },
    ]);
    expect(await kept('ledger_day_balances', 'day')).toEqual([
      { category_id: cats[0], period: '2024-05-02', d: 700, c: 0 },
      { category_id: cats[1], period: '2024-05-02', d: 0, c: 700 },
    ]);
  });

  it('a transaction whose debits and credits differ cannot commit', async () => {
    const before = await count();
    const err = await commit(
      [txn('2024-05-02'), [w.workspaceId]],
      [line(1, 0, 700, 0), [w.workspaceId, cats[0]]],
      [line(2, 1, 0, 690), [w.workspaceId, cats[1]]],
    );
    expect(err?.constraint).toBe('journal_balanced');
    expect(await count()).toBe(before);
  });

  it('a line added later to a committed transaction cannot unbalance it', async () => {
    // the committed transaction read first, the line then inserted by value: on Citus the INSERT … SELECT of `line`, alone
    // in its transaction, committed without storing a line (nothing to refuse)
    const { rows } = await client.query(
      `SELECT id::text, txn_date::text AS date FROM journal_transactions
        WHERE workspace_id = $1 AND description = 'raw' ORDER BY id DESC LIMIT 1`,
      [w.workspaceId],
    );
    const err = await commit([
      `INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, txn_date, kind)
       VALUES ($1, $2, 3, $3, 5, 0, $4, 'MANUAL')`,
      [rows[0].id, w.workspaceId, cats[0], rows[0].date],
    ]);
    expect(err?.constraint).toBe('journal_balanced');
  });

  it('a transaction written with its lines by one statement that does not balance cannot commit', async () => {
    const before = await count();
    const err = await commit([
      `WITH t AS (INSERT INTO journal_transactions (workspace_id, kind, txn_date, description)
                  VALUES ($1, 'MANUAL', '2024-05-03', 'raw') RETURNING id, txn_date)
       INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, txn_date, kind)
       SELECT t.id, $1, x.n, x.category_id, x.debit, x.credit, t.txn_date, 'MANUAL'
         FROM t, (VALUES (1, $2::uuid, 700, 0), (2, $3::uuid, 0, 600)) AS x(n, category_id, debit, credit)`,
      [w.workspaceId, cats[0], cats[1]],
    ]);
    expect(err?.constraint).toBe('journal_balanced');
    expect(err?.message).toMatch(/debits \(700\) and credits \(600\) differ/);
    expect(await count()).toBe(before);
  });

  it('a transaction built over several statements is checked at commit, not after each', async () => {
    const before = await count();
    expect(
      await commit(
        [txn('2024-05-06'), [w.workspaceId]],
        [line(1, 0, 700, 0), [w.workspaceId, cats[0]]],
        [line(2, 1, 0, 690), [w.workspaceId, cats[1]]],
        [line(3, 1, 0, 10), [w.workspaceId, cats[1]]],
      ),
    ).toBeNull();
    expect(await count()).toBe(before + 1);
  });

  it('a line whose date differs from its transaction is refused', async () => {
    const before = await count();
    const err = await commit(
      [txn('2024-05-07'), [w.workspaceId]],
      [line(1, 0, 700, 0, 1), [w.workspaceId, cats[0]]],
      [line(2, 1, 0, 700), [w.workspaceId, cats[1]]],
    );
    expect(err?.constraint).toBe('journal_balanced');
    expect(err?.message).toMatch(/its date, kind or entry differ from its transaction/);
    expect(await count()).toBe(before);
  });

  it.each([
    ['UPDATE of a transaction', `UPDATE journal_transactions SET txn_date = txn_date + 1 WHERE workspace_id = $1`],
    ['DELETE of a transaction', `DELETE FROM journal_transactions WHERE workspace_id = $1`],
    ['UPDATE of a line', `UPDATE journal_lines SET debit_cents = debit_cents WHERE workspace_id = $1`],
    ['DELETE of a line', `DELETE FROM journal_lines WHERE workspace_id = $1`],
  ])('the journal is append-only: %s fails', async (_, statement) => {
    const err = await commit([statement, [w.workspaceId]]);
    expect(err?.constraint).toBe('journal_append_only');
  });

  it.each(['journal_lines', 'journal_transactions'])('TRUNCATE %s fails', async (table) => {
    const err = await commit([`TRUNCATE ${table} CASCADE`]);
    expect(err?.constraint).toBe('journal_append_only');
  });

  it('nothing is posted dated in a closed period', async () => {
    const before = await count();
    const err = await commit(
      [txn('2024-03-15'), [w.workspaceId]],
      [line(1, 0, 700, 0), [w.workspaceId, cats[0]]],
      [line(2, 1, 0, 700), [w.workspaceId, cats[1]]],
    );
    expect(err?.constraint).toBe('journal_closed_period');
    expect(await count()).toBe(before);
  });
});
