import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { db } from '../../server/db/database.js';
import { runtime } from '../../server/runtime.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../server/domains/outbound-webhooks/index.js';
import { startServer, type Api } from '../support/http.js';
import { createEndpoint, hookWorld, periodClosed, type HookWorld } from '../support/factories/index.js';
import { deliveryRows, eventually, webhookTestConfig } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

/** CONTRACT §15 deliveries, through a real receiver on 127.0.0.1 and the real worker. */

let api: Api;
let w: HookWorld;
let rx: Receiver;
let worker: DeliveryWorker;
beforeAll(async () => {
  api = await startServer();
  webhookTestConfig();
  rx = await startReceiver();
  worker = startDeliveryWorker({ pollMs: 100 });
});
afterAll(async () => {
  await worker.stop();
  await rx.close();
});

const deliveries = async (endpointId: string, query: Record<string, string | number> = {}) => {
  const res = await api.get(`/webhook-endpoints/${endpointId}/deliveries`, { token: w.token, query });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

describe('a delivery', () => {
  beforeAll(async () => {
    w = await hookWorld(api);
  });

  it('is signed as Standard Webhooks says (verified by the standardwebhooks package) and carries the event', async () => {
    const ep = await createEndpoint(api, w, { url: rx.url('/signed') });
    const period = await periodClosed(api, w);
    const [req] = await rx.waitFor('/signed', 1);
    const payload = new Webhook(ep.secret).verify(req.body, req.headers) as any;
    expect(payload).toMatchObject({ type: 'period.closed', workspaceId: w.workspaceId, data: { object: period } });
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['webhook-id']).toBe(payload.id);
    expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // a wrong secret does not verify
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(req.body, req.headers)).toThrow();
    // the event is the one in the feed
    const feed = await api.get('/webhook-events', { token: w.token, query: { workspaceId: w.workspaceId, type: 'period.closed' } });
    expect(feed.body.items.map((e: any) => e.id)).toContain(payload.id);
    expect(feed.body.items.find((e: any) => e.id === payload.id)).toEqual(payload);
    const page = await eventually(async () => {
      const p = await deliveries(ep.id);
      expect(p.items[0].status).toBe('SUCCEEDED');
      return p;
    });
    expect(page).toMatchObject({ total: 1, limit: 20, offset: 0 });
    expect(page.items[0]).toMatchObject({
      endpointId: ep.id,
      eventId: payload.id,
      eventType: 'period.closed',
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
    });
  });

  it('goes only to endpoints subscribed to its type, and only to active ones', async () => {
    const reopenOnly = await createEndpoint(api, w, { url: rx.url('/reopen-only'), eventTypes: ['period.reopened'] });
    const inactive = await createEndpoint(api, w, { url: rx.url('/inactive') });
    await api.patch(`/webhook-endpoints/${inactive.id}`, { isActive: false }, { token: w.token });
    const period = await periodClosed(api, w);
    expect((await api.patch(`/accounting/periods/${period.id}/reopen`, undefined, { token: w.token })).status).toBe(200);
    const [req] = await rx.waitFor('/reopen-only', 1);
    expect(JSON.parse(req.body)).toMatchObject({ type: 'period.reopened', data: { object: { id: period.id, status: 'OPEN' } } });
    expect(await deliveryRows(reopenOnly.id)).toHaveLength(1);
    expect(await deliveryRows(inactive.id)).toHaveLength(0);
    expect(rx.at('/inactive')).toHaveLength(0);
  });

  it('is retried after the schedule with the same webhook-id, and FAILED once the schedule is spent', async () => {
    rx.respond('/flaky', (_, nth) => ({ status: nth <= 2 ? 500 : 200 }));
    rx.respond('/down', () => ({ status: 503 }));
    const flaky = await createEndpoint(api, w, { url: rx.url('/flaky') });
    const down = await createEndpoint(api, w, { url: rx.url('/down') });
    await periodClosed(api, w);
    const tries = await rx.waitFor('/flaky', 3);
    expect(new Set(tries.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (let i = 1; i < 3; i++) expect(tries[i].at - tries[i - 1].at).toBeGreaterThanOrEqual(900); // schedule "1,1,1"
    for (const r of tries) new Webhook(flaky.secret).verify(r.body, r.headers);
    await eventually(async () =>
      expect((await deliveryRows(flaky.id))[0]).toMatchObject({ status: 'SUCCEEDED', attempts: 3, last_status_code: 200 }),
    );

    // 1 attempt + 3 retries, then FAILED
    await rx.waitFor('/down', 4);
    const [failed] = await eventually(async () => {
      const rows = await deliveryRows(down.id);
      expect(rows[0].status).toBe('FAILED');
      return rows;
    });
    expect(failed).toMatchObject({ attempts: 4, last_status_code: 503, next_attempt_at: null });
    expect(failed.last_error).toMatch(/503/);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(rx.at('/down')).toHaveLength(4);
  });

  it('honours Retry-After on 429 and 503 when it is longer than the schedule', async () => {
    rx.respond('/slow-down', (_, nth) => (nth === 1 ? { status: 429, headers: { 'Retry-After': '3' } } : { status: 200 }));
    const ep = await createEndpoint(api, w, { url: rx.url('/slow-down') });
    await periodClosed(api, w);
    await rx.waitFor('/slow-down', 1);
    const [row] = await eventually(async () => {
      const rows = await deliveryRows(ep.id);
      expect(rows[0]).toMatchObject({ attempts: 1, last_status_code: 429, status: 'PENDING' });
      return rows;
    });
    expect(row.next_attempt_at!.getTime() - row.last_attempt_at!.getTime()).toBeGreaterThanOrEqual(3000);
    const [first, second] = await rx.waitFor('/slow-down', 2);
    expect(second.at - first.at).toBeGreaterThanOrEqual(2900);
    await eventually(async () => expect((await deliveryRows(ep.id))[0]).toMatchObject({ status: 'SUCCEEDED', attempts: 2 }));
  });

  it('410 disables the endpoint at once (isActive false, disabledReason) and its later events are not sent', async () => {
    rx.respond('/gone', () => ({ status: 410 }));
    const ep = await createEndpoint(api, w, { url: rx.url('/gone') });
    await periodClosed(api, w);
    await rx.waitFor('/gone', 1);
    const got = await eventually(async () => {
      const res = await api.get(`/webhook-endpoints/${ep.id}`, { token: w.token });
      expect(res.body.isActive).toBe(false);
      return res.body;
    });
    expect(got.disabledReason).toMatch(/410/);
    expect((await deliveryRows(ep.id))[0]).toMatchObject({ status: 'FAILED', attempts: 1, last_status_code: 410 });
    await periodClosed(api, w);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(rx.at('/gone')).toHaveLength(1);
    expect(await deliveryRows(ep.id)).toHaveLength(1);
    // replaying to a disabled endpoint is refused until it is enabled again
    const res = await api.post(`/webhook-endpoints/${ep.id}/replay`, { since: '2000-01-01T00:00:00Z' }, { token: w.token });
    expect(res.status).toBe(409);
  });

  it('a redirect is a failure and is never followed', async () => {
    rx.respond('/moved', () => ({ status: 302, headers: { Location: rx.url('/target') } }));
    const ep = await createEndpoint(api, w, { url: rx.url('/moved') });
    await periodClosed(api, w);
    await rx.waitFor('/moved', 1);
    const [row] = await eventually(async () => {
      const rows = await deliveryRows(ep.id);
      expect(rows[0].last_status_code).toBe(302);
      return rows;
    });
    expect(row.status).not.toBe('SUCCEEDED');
    expect(row.last_error).toMatch(/redirect/);
    expect(rx.at('/target')).toHaveLength(0);
    await api.del(`/webhook-endpoints/${ep.id}`, { token: w.token });
  });

  it('a host refused by the guard at send time fails the delivery at once', async () => {
    const ep = await createEndpoint(api, w, { url: rx.url('/private') });
    runtime().config.WEBHOOK_ALLOW_PRIVATE_HOSTS = false;
    try {
      await periodClosed(api, w);
      const [row] = await eventually(async () => {
        const rows = await deliveryRows(ep.id);
        expect(rows[0].status).toBe('FAILED');
        return rows;
      });
      expect(row.last_error).toMatch(/loopback/);
      expect(rx.at('/private')).toHaveLength(0);
    } finally {
      runtime().config.WEBHOOK_ALLOW_PRIVATE_HOSTS = true;
    }
  });

  it('a timeout is a failure', async () => {
    rx.respond('/hang', () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 3000)));
    const ep = await createEndpoint(api, w, { url: rx.url('/hang') });
    await periodClosed(api, w);
    await eventually(async () => {
      const [row] = await deliveryRows(ep.id);
      expect(row).toMatchObject({ attempts: 1, status: 'PENDING', last_status_code: null });
      expect(row.last_error).toMatch(/no answer within 2000 ms/);
    });
    await api.del(`/webhook-endpoints/${ep.id}`, { token: w.token });
  });
});

describe('retry, replay, test', () => {
  beforeAll(async () => {
    w = await hookWorld(api);
  });

  it('POST …/deliveries/{id}/retry re-sends a FAILED delivery now with the same webhook-id', async () => {
    let up = false;
    rx.respond('/later', () => ({ status: up ? 200 : 500 }));
    const ep = await createEndpoint(api, w, { url: rx.url('/later') });
    await periodClosed(api, w);
    const [failed] = await eventually(async () => {
      const rows = await deliveryRows(ep.id);
      expect(rows[0].status).toBe('FAILED');
      return rows;
    });
    up = true;
    const res = await api.post(`/webhook-endpoints/${ep.id}/deliveries/${failed.id}/retry`, undefined, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: failed.id, status: 'SUCCEEDED', attempts: 5, lastStatusCode: 200, nextAttemptAt: null });
    const all = rx.at('/later');
    expect(all).toHaveLength(5);
    expect(new Set(all.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const other = await createEndpoint(api, w, { url: rx.url('/x') });
    expect((await api.post(`/webhook-endpoints/${other.id}/deliveries/${failed.id}/retry`, undefined, { token: w.token })).status).toBe(
      404,
    );
  });

  it('POST …/test sends a signed webhook.test event to that endpoint only and returns its delivery', async () => {
    const ep = await createEndpoint(api, w, { url: rx.url('/test-me'), eventTypes: ['sync.failed'] });
    const bystander = await createEndpoint(api, w, { url: rx.url('/bystander') });
    const res = await api.post(`/webhook-endpoints/${ep.id}/test`, undefined, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ endpointId: ep.id, eventType: 'webhook.test', status: 'SUCCEEDED', attempts: 1, lastStatusCode: 200 });
    const [req] = rx.at('/test-me');
    const payload = new Webhook(ep.secret).verify(req.body, req.headers) as any;
    expect(payload).toMatchObject({ id: res.body.eventId, type: 'webhook.test', data: { object: { id: ep.id } } });
    expect(JSON.stringify(payload)).not.toContain(ep.secret.slice(6));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(rx.at('/bystander')).toHaveLength(0);
    expect(await deliveryRows(bystander.id)).toHaveLength(0);
    const feed = await api.get('/webhook-events', { token: w.token, query: { workspaceId: w.workspaceId, type: 'webhook.test' } });
    expect(feed.body.total).toBe(0);
  });

  it('POST …/replay {since, until} queues every subscribed event of the window again → {queued}', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const first = await periodClosed(api, w);
    await periodClosed(api, w);
    const ep = await createEndpoint(api, w, { url: rx.url('/replay') });
    const mid = (await api.get('/webhook-events', { token: w.token, query: { workspaceId: w.workspaceId, since: before } })).body.items;
    const closes = mid.filter((e: any) => e.type === 'period.closed');
    expect(closes).toHaveLength(2);
    expect(closes[0].data.object.id).toBe(first.id);
    expect(
      (await api.post(`/webhook-endpoints/${ep.id}/replay`, { since: closes[0].createdAt, until: closes[0].createdAt }, { token: w.token }))
        .body,
    ).toEqual({ queued: 0 });
    const res = await api.post(`/webhook-endpoints/${ep.id}/replay`, { since: before }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ queued: 2 });
    const got = await rx.waitFor('/replay', 2);
    expect(got.map((r) => r.headers['webhook-id']).sort()).toEqual(closes.map((e: any) => e.id).sort());
    const filtered = await createEndpoint(api, w, { url: rx.url('/replay-none'), eventTypes: ['period.reopened'] });
    expect((await api.post(`/webhook-endpoints/${filtered.id}/replay`, { since: before }, { token: w.token })).body).toEqual({ queued: 0 });
    expect(
      (
        await api.post(
          `/webhook-endpoints/${ep.id}/replay`,
          { since: '2020-02-01T00:00:00Z', until: '2020-01-01T00:00:00Z' },
          { token: w.token },
        )
      ).status,
    ).toBe(400);
  });

  it('after a rotation both secrets sign for 24 hours, then only the new one', async () => {
    const ep = await createEndpoint(api, w, { url: rx.url('/rotated') });
    const rotated = await api.post(`/webhook-endpoints/${ep.id}/rotate-secret`, undefined, { token: w.token });
    const fresh = rotated.body.secret as string;
    const sent = await api.post(`/webhook-endpoints/${ep.id}/test`, undefined, { token: w.token });
    expect(sent.body.status).toBe('SUCCEEDED');
    const [req] = rx.at('/rotated');
    expect(req.headers['webhook-signature'].split(' ')).toHaveLength(2);
    new Webhook(fresh).verify(req.body, req.headers);
    new Webhook(ep.secret).verify(req.body, req.headers);
    // 24 hours later (the overlap is measured from secret_rotated_at)
    await db().query(`UPDATE webhook_endpoints SET secret_rotated_at = now() - interval '24 hours 1 minute' WHERE id = :id`, {
      replacements: { id: ep.id },
    });
    expect((await api.post(`/webhook-endpoints/${ep.id}/test`, undefined, { token: w.token })).body.status).toBe('SUCCEEDED');
    const late = rx.at('/rotated')[1];
    expect(late.headers['webhook-signature'].split(' ')).toHaveLength(1);
    const { createHmac } = await import('node:crypto');
    const expected = createHmac('sha256', Buffer.from(fresh.slice(6), 'base64'))
      .update(`${late.headers['webhook-id']}.${late.headers['webhook-timestamp']}.${late.body}`)
      .digest('base64');
    expect(late.headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('deliveries are paged newest first and filter by status; DELETE removes pending ones', async () => {
    rx.respond('/paged', () => ({ status: 500 }));
    const ep = await createEndpoint(api, w, { url: rx.url('/paged') });
    for (let i = 0; i < 3; i++) await periodClosed(api, w);
    await rx.waitFor('/paged', 3);
    const all = await deliveries(ep.id, { limit: 2 });
    expect(all.total).toBe(3);
    expect(all.items).toHaveLength(2);
    const rest = await deliveries(ep.id, { limit: 2, offset: 2 });
    expect(rest.items).toHaveLength(1);
    const created = [...all.items, ...rest.items].map((d: any) => d.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect((await deliveries(ep.id, { status: 'SUCCEEDED' })).total).toBe(0);
    expect((await deliveries(ep.id, { status: 'PENDING' })).total).toBe(3);
    expect((await api.get(`/webhook-endpoints/${ep.id}/deliveries`, { token: w.token, query: { limit: 101 } })).status).toBe(400);
    expect((await api.del(`/webhook-endpoints/${ep.id}`, { token: w.token })).status).toBe(200);
    expect(await deliveryRows(ep.id)).toHaveLength(0);
    const count = rx.at('/paged').length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(rx.at('/paged').length).toBeLessThanOrEqual(count + 3); // at most the attempts already in flight
  });
});
