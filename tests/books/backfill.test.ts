import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { backfill } from '../../server/db/migrations/0045-books.js';
import { closePeriod, createEntry, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/**
 * Migration 0045 posts every existing entry and bank account once, closed periods included, in batches: entries and
 * an account written straight into the tables (as they stood before the books) are posted by its backfill; a second
 * run posts nothing.
 */
let api: Api;
let w: EntryWorld;
const q = <T extends object>(sql: string, replacements: Record<string, unknown> = {}) =>
  db().query<T>(sql, { replacements, type: QueryTypes.SELECT });

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});

describe('the backfill of migration 0045', () => {
  it('posts the entries and bank openings the journal lacks, closed periods included, once', async () => {
    const model = await createEntry(w, { amountCents: 4_200, entryDate: '2024-02-10', entryType: 'INCOME' });
    // an entry as it stood before the books: inserted behind the core, so nothing posted it
    const [bare] = await q<{ id: string }>(
      `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, entry_status, base_currency, amount_cents, entry_date,
                            fx_rate, fx_rate_date, amount_base_cents)
       SELECT workspace_id, project_id, entry_source_id, 'EXPENSE', 'COMPLETED', 'USD', 1234, '2024-02-11', '1', '2024-02-11', 1234
         FROM entries WHERE workspace_id = :ws AND id = :id RETURNING id`,
      { ws: w.workspaceId, id: model.id },
    );
    const [account] = await q<{ id: string }>(
      `WITH s AS (INSERT INTO entry_sources (workspace_id, kind, name) VALUES (:ws, 'BANK', 'Old bank') RETURNING id)
       INSERT INTO bank_accounts (workspace_id, name, currency, project_id, entry_source_id, opening_balance_cents, opening_date)
       SELECT :ws, 'Old bank', 'USD', :project, s.id, 9900, '2024-01-01' FROM s RETURNING id`,
      { ws: w.workspaceId, project: w.projectId },
    );
    await closePeriod(api, w.token, w.workspaceId, '2024-01-01', '2024-03-31');
    await backfill(db());
    const posted = await q<{ kind: string; date: string; d: string; c: string }>(
      `SELECT t.kind, t.txn_date::text AS date, sum(l.debit_cents)::text AS d, sum(l.credit_cents)::text AS c
         FROM journal_transactions t JOIN journal_lines l ON l.workspace_id = t.workspace_id AND l.transaction_id = t.id
        WHERE t.entry_id = :entry OR t.bank_account_id = :account GROUP BY t.id ORDER BY t.id`,
      { entry: bare.id, account: account.id },
    );
    expect(posted).toEqual([
      { kind: 'ENTRY', date: '2024-02-11', d: '1234', c: '1234' },
      { kind: 'OPENING', date: '2024-01-01', d: '9900', c: '9900' },
    ]);
    const count = async () => (await q<{ n: number }>('SELECT count(*)::int AS n FROM journal_transactions'))[0].n;
    const before = await count();
    await backfill(db());
    expect(await count()).toBe(before);
    // the closed-period trigger is back after the backfill
    const refused = await db()
      .query(`SELECT books_post_entries(:ws, ARRAY[:id]::bigint[])`, { replacements: { ws: w.workspaceId, id: model.id } })
      .then(() => null)
      .catch((e) => e);
    expect(refused).toBeNull(); // nothing to post: no insert, no refusal
    const trigger = await q<{ enabled: string }>(`SELECT tgenabled AS enabled FROM pg_trigger WHERE tgname = 'journal_closed_period'`);
    expect(trigger[0].enabled).toBe('O');
  });
});
