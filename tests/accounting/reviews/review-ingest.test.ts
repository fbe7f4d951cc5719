import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { startServer, type Api } from '../../support/http.js';
import { accountingWorld, createConnection } from '../../support/factories/index.js';
import { expectStatus } from '../helpers.js';

let api: Api;

beforeAll(async () => {
  api = await startServer();
});

describe('auto-queue for entries created in bulk (ingest)', () => {
  it('queues one review per ingested entry, with INTEGRATION events and intact hash chains', async () => {
    const w = await accountingWorld(api);
    const connection = await createConnection(w, { requireReview: true });
    const integration = await api.post('/integrations', { workspaceId: w.workspaceId, name: 'Bank feed' }, { token: w.token });
    expectStatus(integration, 200);
    const entries = Array.from({ length: 60 }, (_, i) => ({
      externalId: `tx-${i}`,
      projectId: w.projectIds[i % 2],
      entryType: 'EXPENSE',
      amountCents: 100 + i,
      baseCurrency: 'USD',
      entryDate: '2026-02-01',
    }));
    const res = await api.post('/api/v1/ingest', { entries }, { headers: { 'X-API-Key': integration.body.apiKey } });
    expectStatus(res, 200);
    expect(res.body.created).toBe(60);
    const rows = await db().query<{ status: string; entry_status: string; n: number }>(
      `SELECT r.status, e.entry_status, count(*)::int AS n FROM accounting_reviews r JOIN entries e ON e.workspace_id = r.workspace_id AND e.id = r.entry_id
        WHERE r.workspace_id = :ws AND r.connection_id = :c GROUP BY 1, 2`,
      { replacements: { ws: w.workspaceId, c: connection.id }, type: QueryTypes.SELECT },
    );
    expect(rows).toEqual([{ status: 'QUEUED', entry_status: 'UNDER_REVIEW', n: 60 }]);
    const ids: number[] = res.body.results.map((r: any) => r.entryId);
    for (const id of [ids[0], ids[31], ids[59]]) {
      const history = (await api.get(`/entries/${id}/events`, { token: w.token })).body;
      expect(history.map((e: any) => [e.kind, e.actorType])).toEqual([
        ['ENTRY_CREATED', 'INTEGRATION'],
        ['REVIEW_QUEUED', 'INTEGRATION'],
        ['STATUS_CHANGED', 'INTEGRATION'],
      ]);
      expect((await api.get(`/entries/${id}/events/verify`, { token: w.token })).body.valid).toBe(true);
    }
  });
});
