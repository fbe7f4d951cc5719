import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { randomUUID } from 'node:crypto';
import { db, transaction } from '../../server/db/database.js';
import { publish, publishMany, startDeliveryWorker, type DeliveryWorker } from '../../server/domains/outbound-webhooks/index.js';
import { onDeliveriesCommitted } from '../../server/domains/outbound-webhooks/delivery-wakeup.js';
import { startServer, type Api } from '../support/http.js';
import { createEndpoint, hookWorld, periodClosed, type HookWorld } from '../support/factories/index.js';
import { webhookTestConfig } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

/**
 * How committed deliveries reach a worker (issue 23, migration 0022): the committing process wakes its
 * own workers at once; deliveries another process wrote are found by the poll.
 */
let api: Api;
let w: HookWorld;
let rx: Receiver;
beforeAll(async () => {
  api = await startServer();
  webhookTestConfig();
  rx = await startReceiver();
  w = await hookWorld(api);
});
afterAll(async () => {
  await rx.close();
});

describe('waking the delivery worker', () => {
  it('wakes this process once per committed transaction that wrote deliveries, and never for a rolled-back one', async () => {
    let wakes = 0;
    const unregister = onDeliveriesCommitted(() => wakes++);
    try {
      const event = { workspaceId: w.workspaceId, type: 'period.closed' as const, object: {} };
      await transaction(async (tx) => {
        await publish(tx, event);
        await publishMany(tx, [event, event]);
        expect(wakes).toBe(0); // not before the commit
      });
      expect(wakes).toBe(1);
      await expect(
        transaction(async (tx) => {
          await publish(tx, event);
          throw new Error('the change fails after publishing');
        }),
      ).rejects.toThrow('the change fails after publishing');
      expect(wakes).toBe(1);
    } finally {
      unregister();
    }
  });

  describe('with a worker whose poll is far away', () => {
    let worker: DeliveryWorker;
    beforeAll(() => {
      worker = startDeliveryWorker({ pollMs: 600_000 });
    });
    afterAll(async () => {
      await worker.stop();
    });

    it('a create committed by this process is delivered without waiting for the poll', async () => {
      await createEndpoint(api, w, { url: rx.url('/created'), eventTypes: ['entry.created'] });
      const started = Date.now();
      const res = await api.post(
        '/entries',
        { projectId: (await firstProject()).id, entryType: 'INCOME', amountCents: 100, baseCurrency: 'USD', entryDate: '2026-03-01' },
        { token: w.token },
      );
      expect(res.status, res.text).toBe(200);
      const [req] = await rx.waitFor('/created', 1, 5_000);
      expect(JSON.parse(req.body)).toMatchObject({ type: 'entry.created', data: { object: { id: res.body.id } } });
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('a period close (outbox of another domain) is delivered the same way', async () => {
      await createEndpoint(api, w, { url: rx.url('/closed'), eventTypes: ['period.closed'] });
      const period = await periodClosed(api, w);
      const [req] = await rx.waitFor('/closed', 1, 5_000);
      expect(JSON.parse(req.body)).toMatchObject({ type: 'period.closed', data: { object: { id: period.id } } });
    });
  });

  it('deliveries written by another process are found by the poll', async () => {
    const ep = await createEndpoint(api, w, { url: rx.url('/elsewhere'), eventTypes: ['period.closed'] });
    const worker = startDeliveryWorker({ pollMs: 200 });
    try {
      // as another instance would: plain SQL on its own connection, no wake-up in this process
      const eventId = randomUUID();
      await db().query(
        `WITH ev AS (INSERT INTO webhook_events (id, workspace_id, type, data, created_at)
                     VALUES ($1, $2, 'period.closed', '{"object":{}}', now()) RETURNING id)
         INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, next_attempt_at, created_at)
         SELECT $2, $3, ev.id, now(), now() FROM ev`,
        { bind: [eventId, w.workspaceId, ep.id], type: QueryTypes.INSERT },
      );
      const [req] = await rx.waitFor('/elsewhere', 1, 5_000);
      expect(req.headers['webhook-id']).toBe(eventId);
    } finally {
      await worker.stop();
    }
  });
});

async function firstProject(): Promise<{ id: number }> {
  const res = await api.get('/projects', { token: w.token, query: { workspaceId: w.workspaceId } });
  expect(res.status, res.text).toBe(200);
  return (res.body.items ?? res.body)[0];
}
