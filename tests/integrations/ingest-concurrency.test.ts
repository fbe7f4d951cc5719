import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { onCitus } from '../../server/db/distributed.js';
import { startServer, type Api } from '../support/http.js';
import { integrationWorld } from '../support/factories/index.js';
import { expectIngestOk, ingest, item } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const rowsOf = <T extends object>(sql: string, replacements: Record<string, unknown>) =>
  db().query<T>(sql, { replacements, type: QueryTypes.SELECT });

type Result = { externalId: string; status: string; entryId?: number };

/** How many backends of this database wait on a lock. */
const lockWaiters = async () =>
  (
    await rowsOf<{ n: number }>(
      // on Citus (TEST_CITUS=1) the wait is on a worker: citus_stat_activity shows every node's backends
      `SELECT count(*)::int AS n FROM ${(await onCitus()) ? 'citus_stat_activity' : 'pg_stat_activity'}
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      {},
    )
  )[0].n;

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
         FROM entries WHERE workspace_id = :ws AND integration_id = :id`,
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

  /**
   * Another transaction holds an uncommitted entry with one of the batch's externalIds: the
   * batch's INSERT waits on the unique index. Committed → that item is DUPLICATE of the held
   * entry and the rest is written (the rolled-back savepoint left nothing behind); rolled
   * back → every item is CREATED.
   */
  it.each([
    ['commits', 'DUPLICATE'],
    ['rolls back', 'CREATED'],
  ])('a batch waiting on a racing writer that %s answers %s for that item and writes the rest once', async (outcome, heldStatus) => {
    const w = await integrationWorld(api);
    const [source] = await rowsOf<{ entry_source_id: number }>('SELECT entry_source_id FROM integrations WHERE id = :id', {
      id: w.integration.id,
    });
    const racer = await db().transaction();
    let heldId: number;
    try {
      const [held] = await db().query<{ id: number }>(
        `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, base_currency, amount_cents, entry_date,
                              integration_id, external_id)
         VALUES (:ws, :project, :source, 'EXPENSE', 'USD', 999, '2026-02-10', :integration, 'held-2') RETURNING id`,
        {
          replacements: { ws: w.workspaceId, project: w.projectIds[0], source: source.entry_source_id, integration: w.integration.id },
          type: QueryTypes.SELECT,
          transaction: racer,
        },
      );
      heldId = Number(held.id);
      const pending = ingest(api, w.apiKey, {
        entries: ['fresh-1', 'held-2', 'fresh-3'].map((id, i) => item(w.projectIds[0], id, { amountCents: 100 + i })),
      });
      // the ingest INSERT is now queued behind the racer's uncommitted index entry
      await expect.poll(lockWaiters, { timeout: 5_000, interval: 25 }).toBeGreaterThan(0);
      if (outcome === 'commits') await racer.commit();
      else await racer.rollback();
      const res = await pending;
      expectIngestOk(res);
      const byId = new Map((res.body.results as Result[]).map((r) => [r.externalId, r]));
      expect(byId.get('fresh-1')!.status).toBe('CREATED');
      expect(byId.get('fresh-3')!.status).toBe('CREATED');
      expect(byId.get('held-2')!.status).toBe(heldStatus);
      if (heldStatus === 'DUPLICATE') expect(byId.get('held-2')!.entryId).toBe(heldId);
    } finally {
      if (!(racer as unknown as { finished?: string }).finished) await racer.rollback();
    }
    const rows = await rowsOf<{ external_id: string; amount_cents: string; events: number }>(
      `SELECT e.external_id, e.amount_cents::text,
              (SELECT count(*)::int FROM entry_events ev WHERE ev.workspace_id = e.workspace_id AND ev.entry_id = e.id) AS events
         FROM entries e WHERE e.workspace_id = :ws AND e.integration_id = :id ORDER BY e.external_id`,
      { id: w.integration.id, ws: w.workspaceId },
    );
    expect(rows).toEqual([
      { external_id: 'fresh-1', amount_cents: '100', events: 1 },
      { external_id: 'fresh-3', amount_cents: '102', events: 1 },
      // the racer's own row (no event: it was written behind the service's back) or the batch's
      heldStatus === 'DUPLICATE'
        ? { external_id: 'held-2', amount_cents: '999', events: 0 }
        : { external_id: 'held-2', amount_cents: '101', events: 1 },
    ]);
  });
});
