import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEntry, queuedEntry, reviewWorld, png, requested, uploaded, syncWorld } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { review } from '../accounting/reviews/review-support.js';
import { approve, fulfil, reject } from '../documents/helpers.js';
import { failNext, push, startEmulators, stopEmulators, type Emulators } from '../accounting/sync/helpers.js';
import { webhookTestConfig } from './helpers.js';

/** CONTRACT §15: the non-entry domains publish their events, each with the contract object after the change. */

let api: Api;
let e: Emulators;
beforeAll(async () => {
  api = await startServer();
  webhookTestConfig();
  e = await startEmulators();
});
afterAll(() => stopEmulators(e));

async function feed(w: { api: Api; token: string; workspaceId: number }, type?: string): Promise<any[]> {
  const res = await api.get('/webhook-events', { token: w.token, query: { workspaceId: w.workspaceId, type, limit: 100 } });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
}

describe('events of the other domains', () => {
  it('documents: requested, uploaded (upload and fulfil), approved, rejected', async () => {
    const w = await reviewWorld(api);
    const entry = await createEntry(w);
    const placeholder = await requested(w, entry.id);
    const fulfilled = await fulfil(w, entry.id, placeholder.id, { bytes: png(1) });
    expect(fulfilled.status, fulfilled.text).toBe(200);
    const doc = await uploaded(w, entry.id);
    const approved = await approve(w, entry.id, doc.id);
    const rejected = await reject(w, entry.id, placeholder.id, 'blurry');
    expect(rejected.status, rejected.text).toBe(200);
    const docs = (await feed(w)).filter((ev) => ev.type.startsWith('document.'));
    expect(docs.map((ev) => [ev.type, ev.data.object.id])).toEqual([
      ['document.requested', placeholder.id],
      ['document.uploaded', placeholder.id],
      ['document.uploaded', doc.id],
      ['document.approved', doc.id],
      ['document.rejected', placeholder.id],
    ]);
    expect(docs[0].data.object).toEqual(placeholder);
    expect(docs[3].data.object).toEqual(approved.body);
    expect(docs[4].data.object).toEqual(rejected.body);
    // a refused change publishes nothing
    expect((await approve(w, entry.id, placeholder.id)).status).toBe(200);
    const before = (await feed(w)).length;
    expect((await approve(w, entry.id, placeholder.id)).status).toBe(409);
    expect(await feed(w)).toHaveLength(before);
  });

  it('reviews: queued, approved, rejected, changes_requested', async () => {
    const w = await reviewWorld(api);
    const a = await queuedEntry(w);
    const b = await queuedEntry(w);
    const c = await queuedEntry(w);
    const approved = await review.approve(w, a.review.id);
    const rejected = await review.reject(w, b.review.id);
    const changes = await review.requestChanges(w, c.review.id);
    const events = (await feed(w)).filter((ev) => ev.type.startsWith('review.'));
    expect(events.map((ev) => [ev.type, ev.data.object.id])).toEqual([
      ['review.queued', a.review.id],
      ['review.queued', b.review.id],
      ['review.queued', c.review.id],
      ['review.approved', a.review.id],
      ['review.rejected', b.review.id],
      ['review.changes_requested', c.review.id],
    ]);
    expect(events[0].data.object).toEqual(a.review);
    expect(events[0].data.object.entry.entryStatus).toBe('UNDER_REVIEW');
    expect(events[3].data.object).toEqual(approved.body);
    expect(events[4].data.object).toEqual(rejected.body);
    expect(events[5].data.object).toEqual(changes.body);
  });

  it('sync: synced and failed, with the sync record', async () => {
    const w = await syncWorld(api, 'GENERIC', e);
    const ok = await createEntry(w);
    const synced = await push(w, ok.id);
    expect(synced.status, synced.text).toBe(200);
    const bad = await createEntry(w);
    failNext(w, 400, 1);
    const failed = await push(w, bad.id);
    const events = (await feed(w)).filter((ev) => ev.type.startsWith('sync.'));
    expect(events.map((ev) => ev.type)).toEqual(['sync.synced', 'sync.failed']);
    expect(events[0].data.object).toEqual(synced.body);
    expect(events[1].data.object).toMatchObject({ entryId: bad.id, status: 'FAILED' });
    expect(failed.body).toMatchObject({ status: 'FAILED' });
    expect(events[1].data.object).toEqual(failed.body);
  });
});
