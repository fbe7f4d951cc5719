import { QueryTypes, type Transaction } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { asPreview, db, transaction } from '../../server/db/database.js';
import { startServer, type Api } from '../support/http.js';
import { entryIn, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { expectOk } from '../support/entries.js';

/** The preview mode of the transaction helper (server/db/database.ts) that MCP previews run under. */
let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});

const amountOf = async (id: number) =>
  Number(
    (
      await db().query<{ a: string }>('SELECT amount_cents AS a FROM entries WHERE id = :id', {
        replacements: { id },
        type: QueryTypes.SELECT,
      })
    )[0].a,
  );

describe('asPreview', () => {
  it('returns what the work returned, commits nothing and runs no afterCommit hook', async () => {
    const entry = await entryIn(w, 'PENDING');
    let hooked = false;
    const { settled, halted } = await asPreview(() =>
      transaction(async (tx) => {
        await db().query('UPDATE entries SET description = :d WHERE id = :id', {
          replacements: { d: 'changed', id: entry.id },
          transaction: tx,
        });
        tx.afterCommit(() => void (hooked = true));
        return 'done';
      }),
    );
    expect(settled).toEqual({ status: 'fulfilled', value: 'done' });
    expect(halted).toBeNull();
    expect(hooked).toBe(false);
    const [row] = await db().query<{ description: string }>('SELECT description FROM entries WHERE id = :id', {
      replacements: { id: entry.id },
      type: QueryTypes.SELECT,
    });
    expect(row.description).toBe(entry.description);

    await transaction(async (tx) => {
      tx.afterCommit(() => void (hooked = true));
    });
    expect(hooked).toBe(true); // outside a preview the same helper commits as before
  });

  it("checks the database's deferred rules before rolling back: the refund cap fails the preview as it would fail the commit", async () => {
    const entry = await entryIn(w, 'COMPLETED', { amountCents: 10_000 });
    expectOk(await api.post(`/entries/${entry.id}/refund`, { amountCents: 6_000 }, { token: w.token }), 'refund');
    const { settled } = await asPreview(() =>
      transaction((tx) =>
        db().query('UPDATE entries SET amount_cents = 5000 WHERE id = :id', { replacements: { id: entry.id }, transaction: tx }),
      ),
    );
    expect(settled.status).toBe('rejected');
    expect(String((settled as PromiseRejectedResult).reason)).toMatch(/above its amount/);
    expect(await amountOf(entry.id)).toBe(10_000);
  });

  it('checks that a journal transaction balances before rolling back, as its commit would (CONTRACT §23)', async () => {
    const { settled } = await asPreview(() => transaction((tx) => journalOf(tx, 1_000, 999)));
    expect(settled.status).toBe('rejected');
    expect(String((settled as PromiseRejectedResult).reason)).toMatch(/debits \(1000\) and credits \(999\) differ/);
  });
});

/** A MANUAL journal transaction of w's workspace, debit and credit on two of its role accounts, written as raw SQL. */
async function journalOf(tx: Transaction, debit: number, credit: number): Promise<string> {
  const run = (sql: string, bind: unknown[]) => db().query<Record<string, string>>(sql, { bind, type: QueryTypes.SELECT, transaction: tx });
  await run('SELECT books_ensure_roles($1)', [w.workspaceId]);
  const roles = await run("SELECT role, category_id FROM ledger_roles WHERE workspace_id = $1 AND role IN ('BANK', 'REVENUE')", [
    w.workspaceId,
  ]);
  const account = (role: string) => roles.find((r) => r.role === role)!.category_id;
  const [txn] = await run(
    "INSERT INTO journal_transactions (workspace_id, kind, txn_date) VALUES ($1, 'MANUAL', '2026-03-02') RETURNING id",
    [w.workspaceId],
  );
  await run(
    `INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, txn_date, kind)
     VALUES ($1, $2, 1, $3, $4, 0, '2026-03-02', 'MANUAL'), ($1, $2, 2, $5, 0, $6, '2026-03-02', 'MANUAL')`,
    [txn.id, w.workspaceId, account('BANK'), debit, account('REVENUE'), credit],
  );
  return 'posted';
}
