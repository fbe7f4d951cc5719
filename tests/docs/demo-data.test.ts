import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { trustOwnReceiver } from '../../server/domains/outbound-webhooks/index.js';
import { seedDemo } from '../../server/seed/demo.js';
import { DEMO_PEOPLE } from '../../server/seed/demo-showcase.js';
import { buildUser, login } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/**
 * Issue 37: the demo data shows every capability a newcomer reads about — a correction, line items
 * and payments, a SYNCED sync, a second user and a project-only member, and (with the demo's own
 * receiver) an active webhook endpoint with deliveries of the steps seeded after it.
 */

const RECEIVER = 'http://127.0.0.1:39999/demo/webhook-receiver';
let api: Api;
let token: string;
let workspaceId: number;

const rows = <T extends object>(sql: string) => db().query<T>(sql, { replacements: { ws: workspaceId }, type: QueryTypes.SELECT });

beforeAll(async () => {
  api = await startServer();
  const admin = await buildUser({ email: 'demo-showcase@example.test' });
  trustOwnReceiver(RECEIVER); // as server/app.ts does in demo mode
  const seeded = await seedDemo(admin.email, new Date('2026-06-15T12:00:00Z'), { webhookReceiverUrl: RECEIVER });
  workspaceId = seeded.workspaceId!;
  token = await login(api, admin);
}, 180_000);

afterAll(() => trustOwnReceiver(null));

describe('demo data', () => {
  it('has a monthly rent and a salary made up to the seed day, and a budget with its report (CONTRACT §25)', async () => {
    const list = await api.get('/recurring-entries', { token, query: { workspaceId } });
    expect(list.status).toBe(200);
    const byDescription = new Map(list.body.items.map((r: any) => [r.template.description, r]));
    const rent: any = byDescription.get('Office rent (monthly)');
    const salary: any = byDescription.get('Salary, operations lead');
    expect(rent).toMatchObject({ rrule: 'FREQ=MONTHLY;BYMONTHDAY=1', isActive: true, nextOccurrence: '2026-07-01' });
    expect(salary.rrule).toBe('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1');
    const made = await api.get(`/recurring-entries/${rent.id}/occurrences`, { token, query: { from: '2026-03-01', to: '2026-07-31' } });
    expect(made.body.map((o: any) => [o.occurrenceDate, o.status === 'SCHEDULED' ? 'SCHEDULED' : 'MADE'])).toEqual([
      ['2026-03-01', 'MADE'],
      ['2026-04-01', 'MADE'],
      ['2026-05-01', 'MADE'],
      ['2026-06-01', 'MADE'],
      ['2026-07-01', 'SCHEDULED'],
    ]);
    const budgets = await api.get('/budgets', { token, query: { workspaceId } });
    expect(budgets.body).toHaveLength(1);
    const report = await api.get('/reports/budget-vs-actual', { token, query: { budgetId: budgets.body[0].id } });
    expect(report.status).toBe(200);
    expect(report.body.periods).toHaveLength(12);
    expect(report.body.periods.at(-1).label).toBe('2026-06'); // the year up to the seed's month
    expect(report.body.periods.some((p: any) => p.lines[0].actualCents > 0)).toBe(true);
  });

  it('has a correction: the original VOIDED, its replacement linked as CORRECTION with the new amount', async () => {
    const [link] = await rows<{ original: number; replacement: number }>(
      `SELECT l.original_entry_id AS original, l.derived_entry_id AS replacement FROM entry_links l
         JOIN entries e ON e.id = l.original_entry_id WHERE e.workspace_id = :ws AND l.link_type = 'CORRECTION'`,
    );
    expect(link).toBeDefined();
    const original = (await api.get(`/entries/${link!.original}`, { token })).body;
    const replacement = (await api.get(`/entries/${link!.replacement}`, { token })).body;
    expect(original.entryStatus).toBe('VOIDED');
    expect(replacement.amountCents).toBe(original.amountCents + 1_000);
  });

  it('has an entry with line items and payments that add up to its amount', async () => {
    const [entry] = await rows<{ id: number }>(`SELECT id FROM entries WHERE workspace_id = :ws AND reference = 'INV-ITEMS-0001'`);
    const detail = (await api.get(`/entries/${entry!.id}`, { token })).body;
    expect(detail.items).toHaveLength(2);
    expect(detail.transactions).toHaveLength(2);
    const sum = (xs: { amountCents: number }[]) => xs.reduce((a, x) => a + x.amountCents, 0);
    expect(sum(detail.items)).toBe(detail.amountCents);
    expect(sum(detail.transactions)).toBe(detail.amountCents);
  });

  it('has a SYNCED sync of an approved entry', async () => {
    const res = await api.get('/accounting/syncs', { token, query: { workspaceId, status: 'SYNCED' } });
    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThanOrEqual(1);
  });

  it('has a second workspace member and a member of one project only', async () => {
    const members = (await api.get(`/workspaces/${workspaceId}/members`, { token })).body.map((m: { email: string }) => m.email);
    expect(members).toContain(DEMO_PEOPLE.bookkeeper.email);
    expect(members).not.toContain(DEMO_PEOPLE.contractor.email);
    const [projectMember] = await rows<{ name: string }>(
      `SELECT p.name FROM project_members pm JOIN projects p ON p.id = pm.project_id JOIN users u ON u.id = pm.user_id
        WHERE p.workspace_id = :ws AND u.email = '${DEMO_PEOPLE.contractor.email}'`,
    );
    expect(projectMember).toEqual({ name: 'Client Work' });
  });

  it('has an active endpoint at the demo receiver, with deliveries of the steps seeded after it', async () => {
    const endpoints = (await api.get('/webhook-endpoints', { token, query: { workspaceId } })).body;
    expect(endpoints).toEqual([expect.objectContaining({ url: RECEIVER, isActive: true })]);
    const [counted] = await rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints ep ON ep.id = d.endpoint_id WHERE ep.workspace_id = :ws`,
    );
    expect(counted!.n).toBeGreaterThanOrEqual(3);
  });
});
