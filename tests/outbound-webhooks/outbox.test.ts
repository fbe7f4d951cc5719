import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../server/db/database.js';
import { DeliveryWorker, publish, publishMany } from '../../server/domains/outbound-webhooks/index.js';
import { startServer, type Api } from '../support/http.js';
import { createEndpoint, hookWorld, periodClosed, type HookWorld } from '../support/factories/index.js';
import { eventually, webhookTestConfig } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

/** CONTRACT §15: the outbox (same transaction as the change), the feed, one instance per attempt. */

let api: Api;
let w: HookWorld;
let rx: Receiver;
beforeAll(async () => {
  api = await startServer();
  webhookTestConfig();
  rx = await startReceiver();
  w = await hookWorld(api);
});
afterAll(() => rx.close());

const count = async (sql: string, replacements: Record<string, unknown>) =>
  (await db().query<{ n: number }>(sql, { replacements, type: QueryTypes.SELECT }))[0].n;
const eventCount = () => count('SELECT count(*)::int AS n FROM webhook_events WHERE workspace_id = :ws', { ws: w.workspaceId });
const deliveryCount = () => count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = :ws', { ws: w.workspaceId });

describe('publish', () => {
  it('writes the event and one PENDING delivery per active subscribed endpoint in the caller transaction', async () => {
    const all = await createEndpoint(api, w, { url: rx.url('/unused-a') });
    const some = await createEndpoint(api, w, { url: rx.url('/unused-b'), eventTypes: ['sync.failed'] });
    await createEndpoint(api, w, { url: rx.url('/unused-c'), eventTypes: ['period.closed'] });
    const id = await transaction((tx) =>
      publish(tx, { workspaceId: w.workspaceId, type: 'sync.failed', object: { id: 'x' }, data: { note: 1 } }),
    );
    const [event] = await db().query<any>('SELECT * FROM webhook_events WHERE id = :id', { replacements: { id }, type: QueryTypes.SELECT });
    expect(event).toMatchObject({ type: 'sync.failed', workspace_id: w.workspaceId, data: { object: { id: 'x' }, note: 1 } });
    const targets = await db().query<{ endpoint_id: string; status: string }>(
      'SELECT endpoint_id, status FROM webhook_deliveries WHERE event_id = :id',
      {
        replacements: { id },
        type: QueryTypes.SELECT,
      },
    );
    expect(targets.map((t) => t.endpoint_id).sort()).toEqual([all.id, some.id].sort());
    expect(targets.every((t) => t.status === 'PENDING')).toBe(true);
    await db().query('DELETE FROM webhook_endpoints WHERE workspace_id = :ws', { replacements: { ws: w.workspaceId } });
  });

  it('a rolled-back change leaves no event and no delivery', async () => {
    await createEndpoint(api, w, { url: rx.url('/rollback') });
    const [events, deliveries] = [await eventCount(), await deliveryCount()];
    await expect(
      transaction(async (tx) => {
        await publishMany(tx, [{ workspaceId: w.workspaceId, type: 'period.closed', object: {} }]);
        throw new Error('the change fails after publishing');
      }),
    ).rejects.toThrow('the change fails');
    // through the API: closing a closed period is a 409 and publishes nothing
    const period = await periodClosed(api, w);
    const [events2, deliveries2] = [await eventCount(), await deliveryCount()];
    expect([events2, deliveries2]).toEqual([events + 1, deliveries + 1]);
    expect((await api.patch(`/accounting/periods/${period.id}/close`, undefined, { token: w.token })).status).toBe(409);
    expect([await eventCount(), await deliveryCount()]).toEqual([events2, deliveries2]);
    await db().query('DELETE FROM webhook_endpoints WHERE workspace_id = :ws', { replacements: { ws: w.workspaceId } });
  });

  it('publishMany writes a batch of 1,000 events with their deliveries in one statement, in order', async () => {
    const ep = await createEndpoint(api, w, { url: rx.url('/batch'), eventTypes: ['review.queued'] });
    const queries: string[] = [];
    const seq = db();
    const original = seq.query.bind(seq);
    (seq as any).query = (sql: string, opts: unknown) => {
      queries.push(sql);
      return original(sql, opts as any);
    };
    let ids: string[];
    try {
      ids = await transaction((tx) =>
        publishMany(
          tx,
          Array.from({ length: 1000 }, (_, i) => ({ workspaceId: w.workspaceId, type: 'review.queued' as const, object: { n: i } })),
        ),
      );
    } finally {
      (seq as any).query = original;
    }
    expect(queries.filter((q) => /webhook_/.test(q))).toHaveLength(1);
    expect(new Set(ids!).size).toBe(1000);
    const feed = await api.get('/webhook-events', {
      token: w.token,
      query: { workspaceId: w.workspaceId, type: 'review.queued', limit: 100, offset: 900 },
    });
    expect(feed.body.total).toBe(1000);
    expect(feed.body.items.map((e: any) => e.data.object.n)).toEqual(Array.from({ length: 100 }, (_, i) => 900 + i));
    expect(feed.body.items.map((e: any) => e.id)).toEqual(ids!.slice(900));
    expect(await count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = :id', { id: ep.id })).toBe(1000);
    await db().query('DELETE FROM webhook_endpoints WHERE workspace_id = :ws', { replacements: { ws: w.workspaceId } });
  });
});

describe('the feed', () => {
  it('is paged oldest first and filters by type and since', async () => {
    const fresh = await hookWorld(api);
    const closed = [];
    for (let i = 0; i < 3; i++) closed.push(await periodClosed(api, fresh));
    const reopened = await api.patch(`/accounting/periods/${closed[0].id}/reopen`, undefined, { token: fresh.token });
    const q = (query: Record<string, string | number>) =>
      api.get('/webhook-events', { token: fresh.token, query: { workspaceId: fresh.workspaceId, ...query } });
    const first = await q({ limit: 2 });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ total: 4, limit: 2, offset: 0 });
    const second = await q({ limit: 2, offset: 2 });
    const items = [...first.body.items, ...second.body.items];
    expect(items.map((e: any) => e.type)).toEqual(['period.closed', 'period.closed', 'period.closed', 'period.reopened']);
    expect(items.map((e: any) => e.data.object.id)).toEqual([...closed.map((p) => p.id), closed[0].id]);
    expect(items[3].data.object).toEqual(reopened.body);
    for (const e of items) expect(Object.keys(e).sort()).toEqual(['createdAt', 'data', 'id', 'type', 'workspaceId']);
    expect((await q({ type: 'period.reopened' })).body.items.map((e: any) => e.id)).toEqual([items[3].id]);
    const since = await q({ since: items[2].createdAt });
    expect(since.body.items.map((e: any) => e.id)).toEqual(
      items.filter((e: any) => e.createdAt >= items[2].createdAt).map((e: any) => e.id),
    );
    expect((await q({ type: 'entry.exploded' })).status).toBe(400);
    expect((await q({ limit: 101 })).status).toBe(400);
    // another workspace's events never show
    expect((await api.get('/webhook-events', { token: w.token, query: { workspaceId: fresh.workspaceId } })).status).toBe(403);
  });
});

describe('several workers', () => {
  it('each attempt is made by one instance only: 300 deliveries, two workers, each received once', async () => {
    const fresh = await hookWorld(api);
    const ep = await createEndpoint(api, fresh, { url: rx.url('/two-workers') });
    await transaction((tx) =>
      publishMany(
        tx,
        Array.from({ length: 300 }, (_, i) => ({ workspaceId: fresh.workspaceId, type: 'sync.synced' as const, object: { n: i } })),
      ),
    );
    const workers = [
      new DeliveryWorker({ pollMs: 50, batch: 20, maxInFlight: 40 }),
      new DeliveryWorker({ pollMs: 50, batch: 20, maxInFlight: 40 }),
    ];
    for (const worker of workers) worker.start();
    try {
      await rx.waitFor('/two-workers', 300);
      await eventually(async () =>
        expect(
          await count(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = :id AND status = 'SUCCEEDED' AND attempts = 1`,
            { id: ep.id },
          ),
        ).toBe(300),
      );
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
    const ids = rx.at('/two-workers').map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
  });
});

describe('a worker with every slot taken', () => {
  it('claims again as soon as recorded outcomes free its slots, not at the next poll', async () => {
    const fresh = await hookWorld(api);
    await createEndpoint(api, fresh, { url: rx.url('/slots') });
    await transaction((tx) =>
      publishMany(
        tx,
        Array.from({ length: 50 }, (_, i) => ({ workspaceId: fresh.workspaceId, type: 'sync.synced' as const, object: { n: i } })),
      ),
    );
    const worker = new DeliveryWorker({ pollMs: 600_000, batch: 10, maxInFlight: 10 });
    worker.start();
    try {
      await rx.waitFor('/slots', 50); // five rounds of ten, each claimed when the last one's outcomes were recorded
    } finally {
      await worker.stop();
    }
    expect(new Set(rx.at('/slots').map((r) => r.headers['webhook-id'])).size).toBe(50);
  });
});
