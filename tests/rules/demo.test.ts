import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { seedDemo } from '../../server/seed/demo.js';
import { buildUser, login } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

let api: Api;
let token: string;
let workspaceId: number;

beforeAll(async () => {
  api = await startServer();
  const admin = await buildUser({ email: 'demo-rules@example.test' });
  const seeded = await seedDemo(admin.email, new Date('2026-06-15T12:00:00Z'));
  expect(seeded.seeded).toBe(true);
  workspaceId = seeded.workspaceId!;
  token = await login(api, admin);
}, 120_000);

describe('demo seed: rules', () => {
  it('has three rules that categorised the demo entries they match (closed-period, voided, cancelled and queued-for-review ones left alone)', async () => {
    const rules = (await api.get('/rules', { token, query: { workspaceId } })).body;
    expect(rules.map((r: { name: string }) => r.name)).toEqual(['Rent', 'Software and hosting', 'Travel']);
    const rows = await db().query<{ description: string; code: string | null; writable: boolean }>(
      `SELECT e.description, c.code,
              e.entry_status NOT IN ('VOIDED', 'CANCELLED')
              AND e.entry_date < (SELECT min(q.entry_date) FROM accounting_reviews r JOIN entries q ON q.workspace_id = r.workspace_id AND q.id = r.entry_id
                                   -- the recurring entries' occurrences (seeded after the rules) are queued too
                                   WHERE r.workspace_id = e.workspace_id AND q.recurring_entry_id IS NULL)
              AND NOT EXISTS (
                SELECT 1 FROM accounting_periods p WHERE p.workspace_id = e.workspace_id AND p.status = 'CLOSED'
                   AND e.entry_date BETWEEN p.start_date AND p.end_date) AS writable
         FROM entries e LEFT JOIN accounting_categories c ON c.workspace_id = e.workspace_id AND c.id = e.category_id
        WHERE e.workspace_id = :ws AND e.entry_type = 'EXPENSE'
          AND e.description IN ('Office rent', 'Cloud hosting', 'Software licences', 'Flight to client')`,
      { replacements: { ws: workspaceId }, type: QueryTypes.SELECT },
    );
    const expected: Record<string, string> = {
      'Office rent': '6100',
      'Cloud hosting': '6200',
      'Software licences': '6200',
      'Flight to client': '6300',
    };
    const writable = rows.filter((r) => r.writable);
    expect(writable.length).toBeGreaterThan(5);
    for (const r of writable) expect([r.description, r.code]).toEqual([r.description, expected[r.description]]);
    for (const r of rows.filter((x) => !x.writable)) expect(r.code).toBeNull();
    const applied = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM entry_events WHERE workspace_id = :ws AND kind = 'RULE_APPLIED'`,
      { replacements: { ws: workspaceId }, type: QueryTypes.SELECT },
    );
    expect(applied[0].n).toBe(writable.length);
  });
});
