import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startDeliveryWorker, type DeliveryWorker } from '../../server/domains/outbound-webhooks/index.js';
import {
  closePeriod,
  createEntry,
  makeTag,
  entryWorld,
  type EntryWorld,
  integrationWorld,
  createEndpoint,
} from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { expectIngestOk, ingest, item } from '../integrations/helpers.js';
import { webhookTestConfig } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

/** CONTRACT §15 entry events, published by the ledger core's dispatcher (server/domains/reactions.ts). */

let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  webhookTestConfig();
  w = await entryWorld(api);
});

const feed = async (world: { token: string; workspaceId: number }, type?: string): Promise<any[]> => {
  const res = await api.get('/webhook-events', { token: world.token, query: { workspaceId: world.workspaceId, type, limit: 100 } });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
};
const ok = (res: { status: number; text: string; body: any }) => {
  expect(res.status, res.text).toBe(200);
  return res.body;
};

describe('entry events', () => {
  it('create, edit, tags, status, reconcile and void each publish their event with the entry after the change', async () => {
    const entry = await createEntry(w, { reference: 'EV-1' });
    const edited = ok(await api.patch(`/entries/${entry.id}`, { description: 'Chairs, ergonomic' }, { token: w.token }));
    const tag = { id: await makeTag(api, w.token, w.workspaceId, 'furniture') };
    const tagged = ok(await api.put(`/entries/${entry.id}/tags`, { tagIds: [tag.id] }, { token: w.token }));
    const reviewed = ok(await api.patch(`/entries/${entry.id}/status`, { status: 'UNDER_REVIEW' }, { token: w.token }));
    const reconciled = ok(await api.patch(`/entries/${entry.id}/reconcile`, { isReconciled: true }, { token: w.token }));
    const unreconciled = ok(await api.patch(`/entries/${entry.id}/reconcile`, { isReconciled: false }, { token: w.token }));
    const voided = ok(await api.post(`/entries/${entry.id}/void`, { reason: 'duplicate' }, { token: w.token }));
    const events = (await feed(w)).filter((e) => e.data.object.id === entry.id);
    expect(events.map((e) => e.type)).toEqual([
      'entry.created',
      'entry.updated',
      'entry.updated',
      'entry.status_changed',
      'entry.reconciled',
      'entry.unreconciled',
      'entry.voided',
    ]);
    const objects = [entry, edited, tagged, reviewed, reconciled, unreconciled, voided];
    events.forEach((e, i) => {
      const { tags: _t, items: _i, transactions: _x, documents: _d, fromParty: _f, toParty: _o, ...fields } = objects[i];
      expect(e.data.object, e.type).toMatchObject(fields);
    });
    expect(events[3].data.previousStatus).toBe('PENDING');
    expect(events[6].data.object.entryStatus).toBe('VOIDED');
  });

  it('refund, reimbursement and correction publish their own type with the new entry and originalEntryId', async () => {
    const original = await createEntry(w, { amountCents: 50_000 });
    const refund = ok(await api.post(`/entries/${original.id}/refund`, { amountCents: 1_000 }, { token: w.token }));
    const reimbursement = ok(
      await api.post(
        `/entries/${original.id}/reimburse`,
        { amountCents: 2_000, fromPartyId: w.parties[2], toPartyId: w.parties[3] },
        { token: w.token },
      ),
    );
    const correction = ok(
      await api.post(`/entries/${original.id}/correct`, { reason: 'wrong amount', amountCents: 45_000 }, { token: w.token }),
    );
    const all = await feed(w);
    for (const [type, created] of [
      ['entry.refunded', refund],
      ['entry.reimbursed', reimbursement],
      ['entry.corrected', correction],
    ] as const) {
      const found = all.filter((e) => e.type === type && e.data.object.id === created.id);
      expect(found, type).toHaveLength(1);
      expect(found[0].data.originalEntryId).toBe(original.id);
      // announced by its own type, not a second time as entry.created
      expect(all.filter((e) => e.type === 'entry.created' && e.data.object.id === created.id)).toHaveLength(0);
    }
    // the correction voided the original
    expect(all.some((e) => e.type === 'entry.voided' && e.data.object.id === original.id)).toBe(true);
  });

  it('a refused write (closed period, rule) publishes nothing', async () => {
    const fresh = await entryWorld(api);
    await closePeriod(api, fresh.token, fresh.workspaceId, '2025-01-01', '2025-01-31');
    const before = (await feed(fresh)).length;
    const res = await api.post(
      '/entries',
      { projectId: fresh.projectId, entryType: 'EXPENSE', amountCents: 100, baseCurrency: 'USD', entryDate: '2025-01-10' },
      { token: fresh.token },
    );
    expect(res.status).toBe(409);
    const entry = await createEntry(fresh);
    const afterCreate = (await feed(fresh)).length;
    expect(afterCreate).toBe(before + 1);
    expect((await api.post(`/entries/${entry.id}/refund`, { amountCents: 10_000_000 }, { token: fresh.token })).status).toBe(409);
    expect(await feed(fresh)).toHaveLength(afterCreate);
  });

  it('an ingest batch publishes one entry.created per created entry (not for duplicates)', async () => {
    const iw = await integrationWorld(api);
    const entries = Array.from({ length: 50 }, (_, i) => item(iw.projectIds[0], `ev-${i}`, { amountCents: 100 + i }));
    const res = await ingest(api, iw.apiKey, { entries });
    expectIngestOk(res);
    expectIngestOk(await ingest(api, iw.apiKey, { entries }));
    const created = (await feed(iw, 'entry.created')).map((e) => e.data.object);
    expect(created).toHaveLength(50);
    expect(new Set(created.map((o: any) => o.id))).toEqual(new Set(res.body.results.map((r: any) => r.entryId)));
  });
});

describe('delivered entry events', () => {
  let rx: Receiver;
  let worker: DeliveryWorker;
  beforeAll(async () => {
    rx = await startReceiver();
    worker = startDeliveryWorker({ pollMs: 100 });
  });
  afterAll(async () => {
    await worker.stop();
    await rx.close();
  });

  it('a subscribed endpoint receives the signed entry.created of POST /entries', async () => {
    const ep = await createEndpoint(
      api,
      { workspaceId: w.workspaceId, token: w.token, userId: w.userId },
      { url: rx.url('/entries'), eventTypes: ['entry.created'] },
    );
    const entry = await createEntry(w, { reference: 'DELIVER-1' });
    const [req] = await rx.waitFor('/entries', 1);
    const payload = new Webhook(ep.secret).verify(req.body, req.headers) as any;
    expect(payload).toMatchObject({
      type: 'entry.created',
      workspaceId: w.workspaceId,
      data: { object: { id: entry.id, reference: 'DELIVER-1' } },
    });
  });
});
