import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { startServer, type Api } from '../support/http.js';
import { expectIngestOk, ingest, integrationWorld, item } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const rowsOf = <T extends object>(sql: string, replacements: Record<string, unknown>) =>
  db().query<T>(sql, { replacements, type: QueryTypes.SELECT });

type Result = { externalId: string; status: string; entryId?: number };

describe('POST /api/v1/ingest under concurrency (real parallel requests)', () => {
  it('5 identical 200-item batches at once create each entry exactly once', async () => {
    const w = await integrationWorld(api);
    const entries = Array.from({ length: 200 }, (_, i) =>
      item(w.projectIds[i % 2], `race-${i}`, { amountCents: 100 + i, tagNames: ['race'], fromParty: { name: 'Race Vendor' } }),
    );
    const responses = await Promise.all(Array.from({ length: 5 }, () => ingest(api, w.apiKey, { entries })));
    for (const res of responses) {
      expectIngestOk(res);
      expect(res.body.failed).toBe(0);
      expect(res.body.created + res.body.duplicates).toBe(200);
    }
    expect(responses.reduce((sum, res) => sum + res.body.created, 0)).toBe(200);

    // every response names the same entry for each externalId
    const idOf = new Map<string, number>();
    for (const res of responses) {
      for (const r of res.body.results as Result[]) {
        expect(r.entryId).toEqual(expect.any(Number));
        if (!idOf.has(r.externalId)) idOf.set(r.externalId, r.entryId!);
        expect(r.entryId).toBe(idOf.get(r.externalId));
      }
    }
    const [stats] = await rowsOf<{ n: number; distinct_ext: number; total: number; events: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct_ext, sum(amount_cents)::bigint AS total,
              (SELECT count(*)::int FROM entry_events ev WHERE ev.workspace_id = :ws) AS events
         FROM entries WHERE integration_id = :id`,
      { id: w.integration.id, ws: w.workspaceId },
    );
    expect(stats).toEqual({ n: 200, distinct_ext: 200, total: 200 * 100 + (199 * 200) / 2, events: 200 });
    expect(new Set(idOf.values()).size).toBe(200);
    const [tagLinks] = await rowsOf<{ n: number }>('SELECT count(*)::int AS n FROM entry_tags WHERE workspace_id = :ws', {
      ws: w.workspaceId,
    });
    expect(tagLinks.n).toBe(200);
  });

  it('parallel batches naming the same new parties and tags create exactly one of each', async () => {
    const w = await integrationWorld(api);
    const spellings = ['Northwind', 'NORTHWIND', 'northwind'];
    const batches = Array.from({ length: 6 }, (_, b) => ({
      entries: Array.from({ length: 50 }, (_, i) =>
        item(w.projectIds[0], `b${b}-${i}`, {
          fromParty: { name: spellings[(b + i) % 3] },
          toParty: { name: `Shared Customer ${i % 4}` },
          tagNames: [`Shared-${i % 3}`, spellings[b % 3]],
        }),
      ),
    }));
    const responses = await Promise.all(batches.map((body) => ingest(api, w.apiKey, body)));
    for (const res of responses) {
      expectIngestOk(res);
      expect(res.body).toMatchObject({ created: 50, duplicates: 0, failed: 0 });
    }
    const parties = await rowsOf<{ key: string; n: number }>(
      'SELECT lower(name) AS key, count(*)::int AS n FROM parties WHERE workspace_id = :ws GROUP BY lower(name) ORDER BY 1',
      { ws: w.workspaceId },
    );
    expect(parties).toEqual([
      { key: 'northwind', n: 1 },
      { key: 'shared customer 0', n: 1 },
      { key: 'shared customer 1', n: 1 },
      { key: 'shared customer 2', n: 1 },
      { key: 'shared customer 3', n: 1 },
    ]);
    const tags = await rowsOf<{ key: string }>('SELECT lower(name) AS key FROM tags WHERE workspace_id = :ws ORDER BY 1', {
      ws: w.workspaceId,
    });
    expect(tags.map((t) => t.key)).toEqual(['northwind', 'shared-0', 'shared-1', 'shared-2']);
    const [fromParties] = await rowsOf<{ n: number }>(
      'SELECT count(DISTINCT from_party_id)::int AS n FROM entries WHERE integration_id = :id',
      { id: w.integration.id },
    );
    expect(fromParties.n).toBe(1);
  });

  it('overlapping batches in opposite orders both finish (no deadlock) and write the union once', async () => {
    const w = await integrationWorld(api);
    const forward = Array.from({ length: 300 }, (_, i) => item(w.projectIds[0], `o-${i}`));
    const backward = [...forward].reverse();
    const extra = Array.from({ length: 50 }, (_, i) => item(w.projectIds[0], `x-${i}`));
    const responses = await Promise.all([
      ingest(api, w.apiKey, { entries: forward }),
      ingest(api, w.apiKey, { entries: [...extra, ...backward] }),
      ingest(api, w.apiKey, { entries: [...backward.slice(0, 150), ...extra] }),
    ]);
    for (const res of responses) expectIngestOk(res);
    expect(responses.reduce((s, r) => s + r.body.created, 0)).toBe(350);
    expect(responses.reduce((s, r) => s + r.body.failed, 0)).toBe(0);
    const [n] = await rowsOf<{ n: number }>('SELECT count(*)::int AS n FROM entries WHERE integration_id = :id', {
      id: w.integration.id,
    });
    expect(n.n).toBe(350);
  });
});
