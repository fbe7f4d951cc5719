import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgClientConfig } from '../../server/db/database.js';
import { createEntry, bankWorld, camt053, imported } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { lines } from '../banking/helpers.js';

/**
 * Issue 28's bench: the match-balance check (migration 0024, plans fixed by 0041, once per transaction since 0044) runs
 * from a plan plpgsql caches after five calls. A generic plan made from the statistics of small tables read every match
 * by a scan per check — O(n²) for an auto-match of n lines. PostgreSQL's own auto_explain shows the plan each check
 * runs: forced generic here, on tables that hold a handful of rows, every lookup is an index lookup. It also shows when
 * the checks run: once, at commit, for all the matches the transaction's statements changed.
 */
const isBalanceCheck = (plan: string) => plan.includes('FROM bank_match_entries me');
const expectIndexLookups = (plan: string) => {
  expect(plan).not.toMatch(/Seq Scan/);
  expect(plan).not.toMatch(/Filter: \(id = /);
  expect(plan).toMatch(/Index Cond: \(id = ANY/);
  expect(plan.match(/Index Cond: \(match_id = /g), 'bank_lines and bank_match_entries by match_id').toHaveLength(2);
};
const pendingChecks = async () => Number((await client.query('SELECT count(*) AS n FROM bank_match_checks')).rows[0].n);
let api: Api;
let client: pg.Client;
const plans: string[] = [];
beforeAll(async () => {
  api = await startServer();
  client = new pg.Client(pgClientConfig());
  await client.connect();
  client.on('notice', (n) => plans.push(n.message ?? ''));
  for (const setting of [
    `LOAD 'auto_explain'`,
    'SET auto_explain.log_min_duration = 0',
    'SET auto_explain.log_nested_statements = on',
    `SET auto_explain.log_level = 'notice'`,
    `SET client_min_messages = 'notice'`,
    'SET plan_cache_mode = force_generic_plan',
  ])
    await client.query(setting);
});
afterAll(() => client?.end());

describe('the match-balance check', () => {
  it('checks the matches a transaction changed once, at commit, however many statements changed them, by index', async () => {
    const w = await bankWorld(api);
    await imported(w, camt053([{ date: '2026-01-07', amount: '-150.00', name: 'Supplier', memo: 'chairs', id: `L-${randomUUID()}` }]));
    const [line] = await lines(w);
    const entry = await createEntry(w, { baseCurrency: 'EUR', amountCents: 15_000, entryDate: '2026-01-06' });

    await client.query('BEGIN');
    await client.query('UPDATE entries SET is_reconciled = true, reconciled_at = now() WHERE id = $1', [entry.id]);
    plans.length = 0;
    const matchId = randomUUID();
    await client.query(`INSERT INTO bank_matches (id, workspace_id, bank_account_id, method) VALUES ($1, $2, $3, 'AUTO')`, [
      matchId,
      w.workspaceId,
      w.account.id,
    ]);
    await client.query('INSERT INTO bank_match_entries (match_id, entry_id, workspace_id) VALUES ($1, $2, $3)', [
      matchId,
      entry.id,
      w.workspaceId,
    ]);
    await client.query(`UPDATE bank_lines SET status = 'MATCHED', match_id = $1 WHERE id = $2`, [matchId, line.id]);
    expect(plans.filter(isBalanceCheck), 'no check before commit').toHaveLength(0);
    expect(await pendingChecks(), 'the entry joining, then the line joining: one row each').toBe(2);
    await client.query('COMMIT');

    const atCommit = plans.filter(isBalanceCheck);
    expect(atCommit.length, 'one check of the match, for both statements').toBe(1);
    expectIndexLookups(atCommit[0]);
    expect(await pendingChecks(), 'the check at commit leaves nothing behind').toBe(0);
    const { rows } = await client.query('SELECT status, match_id FROM bank_lines WHERE id = $1', [line.id]);
    expect(rows[0]).toEqual({ status: 'MATCHED', match_id: matchId });
  });

  it('checks a match written in one statement at commit once, its line locked first as auto-match does, and refuses it unbalanced', async () => {
    const w = await bankWorld(api);
    const refs = [`L-${randomUUID()}`, `L-${randomUUID()}`];
    await imported(w, camt053(refs.map((id) => ({ date: '2026-01-07', amount: '-80.00', name: 'Supplier', memo: id, id }))));
    const [balancedLine, unbalancedLine] = refs.map((ref) => lines(w).then((all) => all.find((l) => l.externalId === ref)));
    const written = async (lineId: number, cents: number): Promise<string | null> => {
      const entry = await createEntry(w, { baseCurrency: 'EUR', amountCents: cents, entryDate: '2026-01-06' });
      await client.query('BEGIN');
      await client.query('UPDATE entries SET is_reconciled = true, reconciled_at = now() WHERE id = $1', [entry.id]);
      await client.query('SELECT id FROM bank_lines WHERE id = $1 FOR UPDATE', [lineId]); // as auto-match locks its lines first
      plans.length = 0;
      await client.query(
        `WITH m AS (INSERT INTO bank_matches (id, workspace_id, bank_account_id, method) VALUES ($1, $2, $3, 'AUTO')),
              me AS (INSERT INTO bank_match_entries (match_id, entry_id, workspace_id) VALUES ($1, $4, $2))
         UPDATE bank_lines SET status = 'MATCHED', match_id = $1 WHERE id = $5`,
        [randomUUID(), w.workspaceId, w.account.id, entry.id, lineId],
      );
      expect(plans.filter(isBalanceCheck), 'no check before commit').toHaveLength(0);
      try {
        await client.query('COMMIT');
        return null;
      } catch (err) {
        return (err as { constraint?: string }).constraint ?? 'error';
      }
    };
    expect(await written((await balancedLine).id, 8_000)).toBeNull();
    expect(plans.filter(isBalanceCheck)).toHaveLength(1);
    expect(await written((await unbalancedLine).id, 8_001)).toBe('bank_match_balance');
    expect(plans.filter(isBalanceCheck)).toHaveLength(1);
    expect(await pendingChecks()).toBe(0);
  });
});
