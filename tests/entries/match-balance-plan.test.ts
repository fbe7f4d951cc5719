import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgClientConfig } from '../../server/db/database.js';
import { createEntry, bankWorld, camt053, imported } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { lines } from '../banking/helpers.js';

/**
 * Issue 28's bench: the match-balance check (migration 0024, plans fixed by 0041) runs once per changed match at
 * commit, from a plan plpgsql caches after five calls. A generic plan made from the statistics of small tables read
 * every match by a scan per check — O(n²) for an auto-match of n lines. PostgreSQL's own auto_explain shows the plan
 * each check runs: forced generic here, on tables that hold a handful of rows, every lookup is an index lookup.
 */
const isBalanceCheck = (plan: string) => plan.includes('FROM bank_match_entries me');
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

describe('the match-balance check at commit', () => {
  it('reads the match, its lines and its entries by index, from a generic plan on small tables', async () => {
    const w = await bankWorld(api);
    await imported(w, camt053([{ date: '2026-01-07', amount: '-150.00', name: 'Supplier', memo: 'chairs', id: `L-${randomUUID()}` }]));
    const [line] = await lines(w);
    const entry = await createEntry(w, { baseCurrency: 'EUR', amountCents: 15_000, entryDate: '2026-01-06' });

    await client.query('BEGIN');
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
    await client.query('UPDATE entries SET is_reconciled = true, reconciled_at = now() WHERE id = $1', [entry.id]);
    plans.length = 0;
    await client.query('COMMIT');

    const checks = plans.filter(isBalanceCheck);
    expect(checks.length, 'the line joining and the entry joining, in statements of their own: checked by each').toBe(2);
    for (const plan of checks) {
      expect(plan).not.toMatch(/Seq Scan/);
      expect(plan).not.toMatch(/Filter: \(id = /);
      expect(plan).toMatch(/Index Scan using \w+ on bank_matches\s.*\n\s+Index Cond: \(id = /);
      expect(plan.match(/Index Cond: \(match_id = /g), 'bank_lines and bank_match_entries by match_id').toHaveLength(2);
    }
    const { rows } = await client.query('SELECT status, match_id FROM bank_lines WHERE id = $1', [line.id]);
    expect(rows[0]).toEqual({ status: 'MATCHED', match_id: matchId });
  });

  it('checks a match written in one statement once (migration 0043), its line locked first as auto-match does, and still refuses it unbalanced', async () => {
    const w = await bankWorld(api);
    const refs = [`L-${randomUUID()}`, `L-${randomUUID()}`];
    await imported(w, camt053(refs.map((id) => ({ date: '2026-01-07', amount: '-80.00', name: 'Supplier', memo: id, id }))));
    const [balancedLine, unbalancedLine] = refs.map((ref) => lines(w).then((all) => all.find((l) => l.externalId === ref)));
    const written = async (lineId: number, cents: number): Promise<string | null> => {
      const entry = await createEntry(w, { baseCurrency: 'EUR', amountCents: cents, entryDate: '2026-01-06' });
      await client.query('BEGIN');
      await client.query('UPDATE entries SET is_reconciled = true, reconciled_at = now() WHERE id = $1', [entry.id]);
      await client.query('SELECT id FROM bank_lines WHERE id = $1 FOR UPDATE', [lineId]); // as auto-match locks its lines first
      await client.query(
        `WITH m AS (INSERT INTO bank_matches (id, workspace_id, bank_account_id, method) VALUES ($1, $2, $3, 'AUTO')),
              me AS (INSERT INTO bank_match_entries (match_id, entry_id, workspace_id) VALUES ($1, $4, $2))
         UPDATE bank_lines SET status = 'MATCHED', match_id = $1 WHERE id = $5`,
        [randomUUID(), w.workspaceId, w.account.id, entry.id, lineId],
      );
      plans.length = 0;
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
  });
});
