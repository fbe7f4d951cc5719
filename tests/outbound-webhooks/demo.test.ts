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
  const admin = await buildUser({ email: 'demo-webhooks@example.test' });
  const seeded = await seedDemo(admin.email, new Date('2026-06-15T12:00:00Z'));
  workspaceId = seeded.workspaceId!;
  token = await login(api, admin);
}, 120_000);

describe('demo seed: webhooks', () => {
  it('has one inactive endpoint with an example URL and a clear description, and nothing queued for it', async () => {
    const res = await api.get('/webhook-endpoints', { token, query: { workspaceId } });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ isActive: false, url: 'https://example.com/webhooks/finance-entries' });
    expect(res.body[0].description).toMatch(/inactive/i);
    const [{ n }] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries', { type: QueryTypes.SELECT });
    expect(n).toBe(0);
  });

  it('has events in the feed: the entries, documents, reviews and the closed period of the demo', async () => {
    for (const type of [
      'entry.created',
      'document.uploaded',
      'document.approved',
      'document.requested',
      'review.queued',
      'period.closed',
    ]) {
      const res = await api.get('/webhook-events', { token, query: { workspaceId, type } });
      expect(res.status).toBe(200);
      expect(res.body.total, type).toBeGreaterThanOrEqual(1);
    }
  });
});
