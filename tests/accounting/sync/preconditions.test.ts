import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closePeriod,
  createEntry,
  entryIn,
  queuedEntry,
  createConnection,
  png,
  connectionBody,
  PROVIDERS,
  syncWorld,
  type SyncWorld,
} from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { review } from '../reviews/review-support.js';
import { expectOkBody, failNext, push, startEmulators, stopEmulators, syncSnapshot, type Emulators } from './helpers.js';

/** CONTRACT §9 push preconditions: each a 409 with nothing changed (no record, no event, no provider call). */
let api: Api;
let e: Emulators;

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
});
afterAll(() => stopEmulators(e));

async function expectRefused(w: SyncWorld, entryId: number, message: RegExp, connectionId = w.connection.id) {
  const before = await syncSnapshot(w, entryId);
  for (const dryRun of [false, true]) {
    const res = await w.api.post('/accounting/sync/push', { entryId, connectionId, dryRun }, { token: w.token });
    expectErrorBody(res, 409, 'CONFLICT');
    expect(res.body.message).toMatch(message);
  }
  expect(await syncSnapshot(w, entryId)).toEqual(before);
}

async function uploadApprovedBasis(w: SyncWorld, entryId: number): Promise<void> {
  const form = new FormData();
  form.append('documentType', 'BASIS');
  form.append('file', new Blob([png(3)], { type: 'image/png' }), 'receipt.png');
  const up = await w.api.request('POST', `/entries/${entryId}/documents/upload`, {
    token: w.token,
    rawBody: form,
    query: { workspaceId: w.workspaceId },
  });
  expect(up.status, up.text).toBe(200);
  const ok = await w.api.patch(`/entries/${entryId}/documents/${up.body.id}/approve`, undefined, { token: w.token });
  expect(ok.status, ok.text).toBe(200);
}

describe.each(PROVIDERS)('push preconditions with %s', (kind) => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await syncWorld(api, kind, e);
  });

  it('entry excludeFromSync', async () => {
    const entry = await createEntry(w, { excludeFromSync: true });
    await expectRefused(w, entry.id, /excludeFromSync/);
  });

  it('connection requires completeness and the entry is not complete; complete, it pushes', async () => {
    const strict = await syncWorld(api, kind, e, { requireCompletenessForSync: true });
    const entry = await createEntry(strict);
    expect(entry.isComplete).toBe(false);
    await expectRefused(strict, entry.id, /complete/);
    await uploadApprovedBasis(strict, entry.id);
    expect(expectOkBody(await push(strict, entry.id)).status).toBe('SYNCED');
  });

  it('entry date in a closed period (also for an entry already synced, whose edit made it STALE)', async () => {
    const entry = await createEntry(w, { entryDate: '2025-03-10' });
    const stale = await createEntry(w, { entryDate: '2025-03-11' });
    expect(expectOkBody(await push(w, stale.id)).status).toBe('SYNCED');
    await api.patch(`/entries/${stale.id}`, { description: 'edited' }, { token: w.token });
    await closePeriod(api, w.token, w.workspaceId, '2025-03-01', '2025-03-31');
    await expectRefused(w, entry.id, /closed accounting period/);
    await expectRefused(w, stale.id, /closed accounting period/);
  });

  it('connection inactive', async () => {
    const other = await createConnection(w, connectionBody(kind, e, { name: 'to deactivate' }));
    expect((await api.del(`/accounting/connections/${other.id}`, { token: w.token })).status).toBe(200);
    const entry = await createEntry(w);
    await expectRefused(w, entry.id, /inactive/, other.id);
  });

  it('connection not covering the entry’s project', async () => {
    const narrow = await createConnection(w, connectionBody(kind, e, { name: 'project 2 only', projectIds: [w.projectIds[1]] }));
    const entry = await createEntry(w, { projectId: w.projectIds[0] });
    await expectRefused(w, entry.id, /does not cover/, narrow.id);
  });

  it('requireReview and no APPROVED review for that connection; approved, it pushes', async () => {
    const reviewed = await syncWorld(api, kind, e, { requireReview: true });
    const { entry, review: r } = await queuedEntry(reviewed);
    await expectRefused(reviewed, entry.id, /APPROVED review/);
    expect((await review.reject(reviewed, r.id, 'no')).status).toBe(200);
    await expectRefused(reviewed, entry.id, /APPROVED review/);
    const second = await queuedEntry(reviewed);
    expect((await review.approve(reviewed, second.review.id)).status).toBe(200);
    expect(expectOkBody(await push(reviewed, second.entry.id)).status).toBe('SYNCED');
  });

  it('entry VOIDED and never synced (also after a failed create)', async () => {
    const entry = await entryIn(w, 'VOIDED');
    await expectRefused(w, entry.id, /never synced/);
    const failedFirst = await createEntry(w);
    failNext(w, 503, 3);
    expect(expectOkBody(await push(w, failedFirst.id)).status).toBe('FAILED');
    expect((await api.post(`/entries/${failedFirst.id}/void`, { reason: 'gone' }, { token: w.token })).status).toBe(200);
    await expectRefused(w, failedFirst.id, /never synced/);
  });
});
