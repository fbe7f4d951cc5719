import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../client-sdk/src/index.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../server/domains/outbound-webhooks/index.js';
import { startServer, type Api } from '../support/http.js';
import { createEndpoint, hookWorld, periodClosed } from '../support/factories/index.js';
import { webhookTestConfig } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

/** The SDK's verifyWebhook: Standard Webhooks signatures, checked against the reference package and real deliveries. */

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({
  id: 'evt',
  type: 'period.closed',
  workspaceId: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  data: { object: { a: 1 } },
});
const NOW = Date.UTC(2026, 0, 1, 12);

function signed(secret: string, id = 'msg_1', at = NOW, payload = body) {
  const ts = Math.floor(at / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': new Webhook(secret).sign(id, new Date(at), payload) };
}

describe('verifyWebhook (no server)', () => {
  const secret = newSecret();
  const now = () => NOW;

  it('accepts what the standardwebhooks package signs, from a plain object or a Headers, string or bytes body', async () => {
    const headers = signed(secret);
    await expect(verifyWebhook(secret, headers, body, { now })).resolves.toMatchObject({ id: 'evt', data: { object: { a: 1 } } });
    await expect(verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(body), { now })).resolves.toMatchObject({
      type: 'period.closed',
    });
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(verifyWebhook(secret, upper, body, { now })).resolves.toBeTruthy();
  });

  it('refuses a changed body, id or timestamp, another secret, and missing headers', async () => {
    const headers = signed(secret);
    const refuse = (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(WebhookVerificationError);
    await refuse(verifyWebhook(secret, headers, body.replace('"a":1', '"a":2'), { now }));
    await refuse(verifyWebhook(secret, { ...headers, 'webhook-id': 'msg_2' }, body, { now }));
    await refuse(
      verifyWebhook(secret, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }, body, { now }),
    );
    await refuse(verifyWebhook(newSecret(), headers, body, { now }));
    await refuse(verifyWebhook(secret, { 'webhook-id': 'msg_1', 'webhook-timestamp': headers['webhook-timestamp'] }, body, { now }));
    await refuse(verifyWebhook(secret, { ...headers, 'webhook-signature': 'v2,' + headers['webhook-signature'].slice(3) }, body, { now }));
    await refuse(verifyWebhook(secret, { ...headers, 'webhook-signature': 'v1,not base64!' }, body, { now }));
  });

  it('holds a tolerance window on the timestamp (default 5 minutes, configurable)', async () => {
    const old = signed(secret, 'msg_1', NOW - 301_000);
    await expect(verifyWebhook(secret, old, body, { now })).rejects.toThrow(/tolerance/);
    await expect(verifyWebhook(secret, signed(secret, 'msg_1', NOW + 301_000), body, { now })).rejects.toThrow(/tolerance/);
    await expect(verifyWebhook(secret, signed(secret, 'msg_1', NOW - 299_000), body, { now })).resolves.toBeTruthy();
    await expect(verifyWebhook(secret, old, body, { now, toleranceSeconds: 600 })).resolves.toBeTruthy();
  });

  it('accepts any of several signatures (the 24 hours after a rotation)', async () => {
    const fresh = newSecret();
    const both = { ...signed(fresh), 'webhook-signature': `${signed(fresh)['webhook-signature']} ${signed(secret)['webhook-signature']}` };
    await expect(verifyWebhook(secret, both, body, { now })).resolves.toBeTruthy();
    await expect(verifyWebhook(fresh, both, body, { now })).resolves.toBeTruthy();
    await expect(verifyWebhook(newSecret(), both, body, { now })).rejects.toBeInstanceOf(WebhookVerificationError);
  });

  it('the SDK does not depend on standardwebhooks or node-only modules', () => {
    for (const file of readdirSync('client-sdk/src')) {
      const text = readFileSync(`client-sdk/src/${file}`, 'utf8');
      expect(text).not.toMatch(/from ['"]standardwebhooks['"]/);
    }
    expect(readFileSync('client-sdk/src/webhooks.ts', 'utf8')).not.toMatch(/from ['"]node:/);
    expect(JSON.parse(readFileSync('client-sdk/package.json', 'utf8')).dependencies).not.toHaveProperty('standardwebhooks');
  });
});

describe('verifyWebhook on a real delivery', () => {
  let api: Api;
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

  it('verifies the service signature and returns the event', async () => {
    const w = await hookWorld(api);
    const ep = await createEndpoint(api, w, { url: rx.url('/sdk') });
    const period = await periodClosed(api, w);
    const [req] = await rx.waitFor('/sdk', 1);
    const event = await verifyWebhook(ep.secret, req.headers, req.body);
    expect(event).toMatchObject({ id: req.headers['webhook-id'], type: 'period.closed', data: { object: period } });
    await expect(verifyWebhook(newSecret(), req.headers, req.body)).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});
