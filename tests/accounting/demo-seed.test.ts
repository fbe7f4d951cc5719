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
  const admin = await buildUser({ email: 'demo-admin@example.test' });
  const seeded = await seedDemo(admin.email, new Date('2026-06-15T12:00:00Z'));
  expect(seeded.seeded).toBe(true);
  workspaceId = seeded.workspaceId!;
  token = await login(api, admin);
}, 120_000);

describe('demo seed: accounting', () => {
  it('has a MANUAL connection that requires review, a chart of accounts with parents, and mappings', async () => {
    const connections = await api.get('/accounting/connections', { token, query: { workspaceId } });
    expect(connections.body).toHaveLength(1);
    const [c] = connections.body;
    expect(c).toMatchObject({ providerType: 'MANUAL', requireReview: true, isActive: true, syncMode: 'MANUAL_PUSH' });
    const categories = (await api.get('/accounting/categories', { token, query: { workspaceId } })).body;
    expect(categories.length).toBeGreaterThanOrEqual(10);
    expect(new Set(categories.map((x: any) => x.accountType))).toEqual(new Set(['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE']));
    expect(categories.filter((x: any) => x.parentId).length).toBeGreaterThan(0);
    expect((await api.get('/accounting/mappings/parties', { token, query: { connectionId: c.id } })).body.length).toBeGreaterThan(0);
    expect((await api.get('/accounting/mappings/taxes', { token, query: { connectionId: c.id } })).body.length).toBeGreaterThan(0);
  });

  it('has a review queue with items in every state, consistent with their entries', async () => {
    const res = await api.get('/accounting/reviews', { token, query: { workspaceId, limit: 100 } });
    const statuses = new Set(res.body.items.map((r: any) => r.status));
    // CANCELLED: the review of the entry the demo corrects (server/seed/demo-showcase.ts)
    expect(statuses).toEqual(new Set(['QUEUED', 'IN_REVIEW', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED', 'CANCELLED']));
    const entryStatusBy: Record<string, string> = {
      QUEUED: 'UNDER_REVIEW',
      IN_REVIEW: 'UNDER_REVIEW',
      APPROVED: 'COMPLETED',
      REJECTED: 'REJECTED',
      CHANGES_REQUESTED: 'PENDING',
      CANCELLED: 'VOIDED',
    };
    for (const r of res.body.items) expect(r.entry.entryStatus).toBe(entryStatusBy[r.status]);
    const dashboard = await api.get('/accounting/dashboard', { token, query: { workspaceId } });
    expect(dashboard.body.syncStats.pending).toBe(1);
    const [{ n }] = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM entry_events WHERE workspace_id = :ws AND kind LIKE 'REVIEW_%'`,
      { replacements: { ws: workspaceId }, type: QueryTypes.SELECT },
    );
    expect(n).toBeGreaterThanOrEqual(10);
  });
});

describe('demo seed: banking', () => {
  it('has a bank account with an imported statement: lines auto-matched, one for a suggested group, one ignored, one open', async () => {
    const accounts = (await api.get('/bank-accounts', { token, query: { workspaceId } })).body;
    expect(accounts).toHaveLength(1);
    const [account] = accounts;
    expect(account).toMatchObject({ currency: 'USD', isActive: true, autoMatch: true, accountNumberLast4: '4242' });
    const statements = (await api.get(`/bank-accounts/${account.id}/statements`, { token })).body;
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ format: 'CSV', lineCount: 6, importedCount: 6, duplicateCount: 0, autoMatchedCount: 3 });
    const lines = (await api.get(`/bank-accounts/${account.id}/lines`, { token, query: { limit: 100 } })).body.items;
    const byStatus = (s: string) => lines.filter((l: any) => l.status === s);
    expect(byStatus('MATCHED')).toHaveLength(3);
    expect(byStatus('IGNORED')).toEqual([expect.objectContaining({ reference: 'FEE', ignoredReason: expect.any(String) })]);
    expect(byStatus('UNMATCHED')).toHaveLength(2);
    for (const line of byStatus('MATCHED')) {
      const match = (await api.get(`/reconciliation/matches/${line.matchId}`, { token })).body;
      expect(match).toMatchObject({ method: 'AUTO', lineIds: [line.id] });
      const entry = (await api.get(`/entries/${match.entryIds[0]}`, { token })).body;
      expect(entry).toMatchObject({ isReconciled: true, amountCents: Math.abs(line.amountCents) });
    }
    const group = byStatus('UNMATCHED').find((l: any) => l.description === 'One transfer for two invoices');
    const suggestions = (await api.get(`/bank-lines/${group.id}/suggestions`, { token })).body;
    expect(suggestions[0]).toMatchObject({ amountCents: Math.abs(group.amountCents) });
    expect(suggestions[0].entryIds).toHaveLength(2);
    const status = (await api.get(`/bank-accounts/${account.id}/reconciliation`, { token })).body;
    expect(status).toMatchObject({ matched: { count: 3 }, unmatched: { count: 2 }, ignored: { count: 1, amountCents: -735 } });
  });
});
