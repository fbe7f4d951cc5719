import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePeriod, createEntry, queuedEntry, PROVIDERS, syncedEntry, syncWorld, type SyncWorld } from '../../support/factories/index.js';
import { events, getEntry } from '../../support/entries.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { review } from '../reviews/review-support.js';
import {
  editExternally,
  eventKinds,
  expectOkBody,
  external,
  failNext,
  providerCreates,
  providerRequests,
  pull,
  push,
  resolve,
  retry,
  setExternalVersion,
  startEmulators,
  stopEmulators,
  syncOf,
  type Emulators,
} from './helpers.js';

/**
 * Every row of the CONTRACT §9 sync table, for the QuickBooks emulator and the generic adapter.
 */
let api: Api;
let e: Emulators;

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
});
afterAll(() => stopEmulators(e));

describe.each(PROVIDERS)('sync table with %s', (kind) => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await syncWorld(api, kind, e);
  });

  it('approval in MANUAL_PUSH: none → PENDING; pushing it: PENDING → SYNCED', async () => {
    const rw = await syncWorld(api, kind, e, { requireReview: true });
    const { entry, review: r } = await queuedEntry({ ...rw, connection: rw.connection });
    expect((await review.approve({ ...rw, connection: rw.connection }, r.id)).status).toBe(200);
    const pending = expectOkBody(await api.get(`/accounting/sync/pending/${rw.connection.id}`, { token: rw.token }));
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ entryId: entry.id, status: 'PENDING', externalId: null, attempts: 0, syncedAt: null });
    const synced = expectOkBody(await push(rw, entry.id));
    expect(synced).toMatchObject({ id: pending[0].id, status: 'SYNCED', attempts: 1, lastError: null });
    expect(expectOkBody(await api.get(`/accounting/sync/pending/${rw.connection.id}`, { token: rw.token }))).toEqual([]);
  });

  it('push succeeds (create): none → SYNCED, one external record with the entry’s values, SYNC_PUSHED', async () => {
    const before = providerCreates(w);
    const entry = await createEntry(w, { amountCents: 12_345, description: 'Desk lamp', reference: 'INV-77' });
    const sync = expectOkBody(await push(w, entry.id));
    expect(Object.keys(sync).sort()).toEqual(
      [
        'attempts',
        'connectionId',
        'createdAt',
        'entryId',
        'externalId',
        'externalVersion',
        'id',
        'lastAttemptAt',
        'lastError',
        'status',
        'syncedAt',
        'updatedAt',
      ].sort(),
    );
    expect(sync).toMatchObject({ connectionId: w.connection.id, entryId: entry.id, status: 'SYNCED', attempts: 1, lastError: null });
    expect(sync.externalId).toBeTruthy();
    expect(sync.syncedAt).toMatch(/Z$/);
    expect(providerCreates(w)).toBe(before + 1);
    expect(external(w, sync.externalId)).toMatchObject({
      version: sync.externalVersion,
      amountCents: 12_345,
      entryDate: '2026-01-15',
      description: 'Desk lamp',
      reference: 'INV-77',
      voided: false,
    });
    const pushed = (await events(w, entry.id)).at(-1);
    expect(pushed).toMatchObject({ kind: 'SYNC_PUSHED', actorType: 'USER', actorId: w.userId });
    expect(pushed.data).toMatchObject({ syncId: sync.id, connectionId: w.connection.id, operation: 'CREATE', externalId: sync.externalId });
  });

  it('push of a SYNCED entry that has not changed is a no-op returning the record', async () => {
    const { entry, sync } = await syncedEntry(w);
    const requests = providerRequests(w);
    const kinds = await eventKinds(w, entry.id);
    const again = expectOkBody(await push(w, entry.id));
    expect(again).toEqual(sync);
    expect(providerRequests(w)).toBe(requests);
    expect(await eventKinds(w, entry.id)).toEqual(kinds);
  });

  it('local edit: SYNCED → STALE (SYNC_STALE); push updates the external record (update when STALE) → SYNCED', async () => {
    const { entry, sync } = await syncedEntry(w);
    const edited = await api.patch(`/entries/${entry.id}`, { amountCents: 20_000, description: 'Two desk lamps' }, { token: w.token });
    expect(edited.status).toBe(200);
    const stale = await syncOf(w, entry.id);
    expect(stale).toMatchObject({ status: 'STALE', externalId: sync.externalId, externalVersion: sync.externalVersion });
    const staleEvent = (await events(w, entry.id)).at(-1);
    expect(staleEvent).toMatchObject({ kind: 'SYNC_STALE', actorType: 'USER' });
    expect(staleEvent.data).toMatchObject({ syncId: sync.id, connectionId: w.connection.id, cause: 'EDITED' });
    const creates = providerCreates(w);
    const updated = expectOkBody(await push(w, entry.id));
    expect(updated).toMatchObject({ id: sync.id, status: 'SYNCED', externalId: sync.externalId, attempts: 2 });
    expect(updated.externalVersion).not.toBe(sync.externalVersion);
    expect(providerCreates(w)).toBe(creates);
    expect(external(w, sync.externalId)).toMatchObject({
      amountCents: 20_000,
      description: 'Two desk lamps',
      version: updated.externalVersion,
    });
    expect((await events(w, entry.id)).at(-1).data).toMatchObject({ operation: 'UPDATE' });
  });

  it('local void: SYNCED → STALE; push voids the external record → SYNCED', async () => {
    const { entry, sync } = await syncedEntry(w);
    expect((await api.post(`/entries/${entry.id}/void`, { reason: 'Duplicate' }, { token: w.token })).status).toBe(200);
    expect((await syncOf(w, entry.id)).status).toBe('STALE');
    expect((await events(w, entry.id)).at(-1).data).toMatchObject({ cause: 'VOIDED' });
    const pushed = expectOkBody(await push(w, entry.id));
    expect(pushed.status).toBe('SYNCED');
    expect(external(w, sync.externalId).voided).toBe(true);
    if (kind === 'GENERIC') expect(e.generic.records.get(sync.externalId)!.sent.voided).toBe(true);
  });

  it('correction of a SYNCED entry: the original’s sync becomes STALE', async () => {
    const { entry } = await syncedEntry(w);
    const res = await api.post(`/entries/${entry.id}/correct`, { reason: 'Wrong amount', amountCents: 999 }, { token: w.token });
    expect(res.status).toBe(200);
    expect((await syncOf(w, entry.id)).status).toBe('STALE');
    expect(await syncOf(w, res.body.id)).toBeNull();
  });

  it('push fails (provider error): → FAILED with lastError and attempts+1 (SYNC_FAILED); push again from FAILED → SYNCED', async () => {
    const entry = await createEntry(w);
    failNext(w, 503, 3);
    const failed = expectOkBody(await push(w, entry.id));
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 1, externalId: null, syncedAt: null });
    expect(failed.lastError).toMatch(/503/);
    expect(failed.lastAttemptAt).toMatch(/Z$/);
    const ev = (await events(w, entry.id)).at(-1);
    expect(ev).toMatchObject({ kind: 'SYNC_FAILED' });
    expect(ev.data).toMatchObject({ syncId: failed.id, attempts: 1, operation: 'CREATE' });
    const ok = expectOkBody(await push(w, entry.id));
    expect(ok).toMatchObject({ id: failed.id, status: 'SYNCED', attempts: 2, lastError: null });
  });

  it('a failed update keeps the external record: FAILED → (push) update → SYNCED', async () => {
    const { entry, sync } = await syncedEntry(w);
    await api.patch(`/entries/${entry.id}`, { description: 'changed' }, { token: w.token });
    failNext(w, 500, 3);
    const failed = expectOkBody(await push(w, entry.id));
    expect(failed).toMatchObject({ status: 'FAILED', externalId: sync.externalId, externalVersion: sync.externalVersion });
    const creates = providerCreates(w);
    const ok = expectOkBody(await push(w, entry.id));
    expect(ok).toMatchObject({ status: 'SYNCED', externalId: sync.externalId });
    expect(providerCreates(w)).toBe(creates);
    expect(external(w, sync.externalId).description).toBe('changed');
  });

  it('pull: external changed, local SYNCED → the entry takes the external values (ENTRY_UPDATED, actor SYSTEM), stays SYNCED', async () => {
    const { entry, sync } = await syncedEntry(w, { amountCents: 5_000, description: 'Before' });
    await pull(w); // everything so far
    const version = editExternally(w, sync.externalId, { amountCents: 7_500, description: 'After' });
    const result = expectOkBody(await pull(w));
    expect(result).toEqual({ pulled: 1, updated: 1, conflicts: 0 });
    expect(await getEntry(w, entry.id)).toMatchObject({ amountCents: 7_500, description: 'After' });
    const after = await syncOf(w, entry.id);
    expect(after).toMatchObject({ status: 'SYNCED', externalVersion: version });
    const updated = (await events(w, entry.id)).at(-1);
    expect(updated).toMatchObject({ kind: 'ENTRY_UPDATED', actorType: 'SYSTEM' });
    expect(updated.data.changes).toEqual({ amountCents: { from: 5_000, to: 7_500 }, description: { from: 'Before', to: 'After' } });
    expect(expectOkBody(await pull(w))).toEqual({ pulled: 0, updated: 0, conflicts: 0 });
  });

  it('pull: the external record voided (QuickBooks: deleted) → the local entry VOIDED (actor SYSTEM), the record stays SYNCED', async () => {
    const { entry, sync } = await syncedEntry(w);
    await pull(w);
    const version = editExternally(w, sync.externalId, { voided: true });
    expect(expectOkBody(await pull(w))).toEqual({ pulled: 1, updated: 1, conflicts: 0 });
    expect(await getEntry(w, entry.id)).toMatchObject({ entryStatus: 'VOIDED', statusReason: 'Voided in the external accounting system' });
    expect(await syncOf(w, entry.id)).toMatchObject({ status: 'SYNCED', externalVersion: version });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({ kind: 'VOIDED', actorType: 'SYSTEM', actorId: w.connection.id });
  });

  it('pull: an external change the entry rules refuse (date in a closed period) → CONFLICT naming the cause, entry unchanged', async () => {
    const { entry, sync } = await syncedEntry(w, { entryDate: '2025-08-10' });
    await pull(w);
    editExternally(w, sync.externalId, { amountCents: 1 });
    await closePeriod(api, w.token, w.workspaceId, '2025-08-01', '2025-08-31');
    expect(expectOkBody(await pull(w))).toEqual({ pulled: 1, updated: 0, conflicts: 1 });
    const conflicted = await syncOf(w, entry.id);
    expect(conflicted.status).toBe('CONFLICT');
    expect(conflicted.lastError).toMatch(/closed accounting period/);
    expect((await getEntry(w, entry.id)).amountCents).toBe(entry.amountCents);
    // KEEP_EXTERNAL cannot apply it either: 409, nothing changes
    expectErrorBody(await resolve(w, sync.id, 'KEEP_EXTERNAL'), 409, 'CONFLICT');
    expect((await syncOf(w, entry.id)).status).toBe('CONFLICT');
  });

  it('pull: an external amount below what was refunded (CONTRACT §5 caps) → CONFLICT; KEEP_EXTERNAL 409; nothing changes', async () => {
    const { entry, sync } = await syncedEntry(w, { amountCents: 10_000 });
    await pull(w);
    const refund = await api.post(`/entries/${entry.id}/refund`, { amountCents: 6_000 }, { token: w.token });
    expect(refund.status, refund.text).toBe(200);
    // the refund is a local change of the family, not of this entry's fields: the record stays SYNCED
    expect((await syncOf(w, entry.id)).status).toBe('SYNCED');
    editExternally(w, sync.externalId, { amountCents: 5_000 });
    expect(expectOkBody(await pull(w))).toMatchObject({ updated: 0, conflicts: 1 });
    const conflicted = await syncOf(w, entry.id);
    expect(conflicted.status).toBe('CONFLICT');
    expect(conflicted.lastError).toMatch(/refund/i);
    expect((await getEntry(w, entry.id)).amountCents).toBe(10_000);
    expectErrorBody(await resolve(w, sync.id, 'KEEP_EXTERNAL'), 409, 'CONFLICT');
    expect((await getEntry(w, entry.id)).amountCents).toBe(10_000);
    expect((await syncOf(w, entry.id)).status).toBe('CONFLICT');
  });

  it('pull: our own push coming back unchanged is not an external change', async () => {
    await pull(w);
    const { entry } = await syncedEntry(w);
    const result = expectOkBody(await pull(w));
    expect(result).toMatchObject({ updated: 0, conflicts: 0 });
    expect(result.pulled).toBeGreaterThanOrEqual(1);
    expect((await syncOf(w, entry.id)).status).toBe('SYNCED');
  });

  it('pull: external changed, local STALE → CONFLICT with the snapshot kept (SYNC_CONFLICT); push of a CONFLICT is 409', async () => {
    const { entry, sync } = await syncedEntry(w);
    await pull(w);
    await api.patch(`/entries/${entry.id}`, { description: 'local change' }, { token: w.token });
    editExternally(w, sync.externalId, { description: 'external change' });
    expect(expectOkBody(await pull(w))).toEqual({ pulled: 1, updated: 0, conflicts: 1 });
    const conflicted = await syncOf(w, entry.id);
    expect(conflicted).toMatchObject({ status: 'CONFLICT', externalVersion: sync.externalVersion });
    expect((await getEntry(w, entry.id)).description).toBe('local change');
    const ev = (await events(w, entry.id)).at(-1);
    expect(ev).toMatchObject({ kind: 'SYNC_CONFLICT', actorType: 'SYSTEM' });
    expectErrorBody(await push(w, entry.id), 409, 'CONFLICT');
  });

  it('resolve KEEP_LOCAL: CONFLICT → push local → SYNCED (the external record takes the local values)', async () => {
    const { entry, sync } = await syncedEntry(w);
    await pull(w);
    await api.patch(`/entries/${entry.id}`, { description: 'mine' }, { token: w.token });
    editExternally(w, sync.externalId, { description: 'theirs' });
    await pull(w);
    const resolved = expectOkBody(await resolve(w, sync.id, 'KEEP_LOCAL'));
    expect(resolved).toMatchObject({ id: sync.id, status: 'SYNCED', lastError: null });
    expect(external(w, sync.externalId)).toMatchObject({ description: 'mine', version: resolved.externalVersion });
    expect((await getEntry(w, entry.id)).description).toBe('mine');
    const kinds = await eventKinds(w, entry.id);
    expect(kinds.slice(-2)).toEqual(['SYNC_PUSHED', 'SYNC_RESOLVED']);
  });

  it('resolve KEEP_EXTERNAL: CONFLICT → the snapshot applied locally → SYNCED', async () => {
    const { entry, sync } = await syncedEntry(w, { amountCents: 1_000 });
    await pull(w);
    await api.patch(`/entries/${entry.id}`, { description: 'mine' }, { token: w.token });
    const version = editExternally(w, sync.externalId, { description: 'theirs', amountCents: 3_000 });
    await pull(w);
    const requests = providerRequests(w);
    const resolved = expectOkBody(await resolve(w, sync.id, 'KEEP_EXTERNAL'));
    expect(resolved).toMatchObject({ status: 'SYNCED', externalVersion: version, lastError: null });
    expect(await getEntry(w, entry.id)).toMatchObject({ description: 'theirs', amountCents: 3_000 });
    expect(providerRequests(w)).toBe(requests);
    const list = await events(w, entry.id);
    expect(list.at(-2)).toMatchObject({ kind: 'ENTRY_UPDATED' });
    expect(list.at(-1)).toMatchObject({ kind: 'SYNC_RESOLVED', data: expect.objectContaining({ resolution: 'KEEP_EXTERNAL' }) });
    // the pulled-in change does not make the record stale again
    expect(expectOkBody(await push(w, entry.id))).toEqual(resolved);
  });

  it('resolve on a record that is not in CONFLICT: 409, nothing changes', async () => {
    const { sync } = await syncedEntry(w);
    for (const resolution of ['KEEP_LOCAL', 'KEEP_EXTERNAL']) expectErrorBody(await resolve(w, sync.id, resolution), 409, 'CONFLICT');
    expectErrorBody(await resolve(w, sync.id, 'KEEP_BOTH'), 400, 'BAD_REQUEST');
  });

  it('retry FAILED and STALE: push again → {success: true}; retry of SYNCED or PENDING: 409', async () => {
    const a = await createEntry(w);
    failNext(w, 502, 3);
    const failed = expectOkBody(await push(w, a.id));
    expect(failed.status).toBe('FAILED');
    expect(expectOkBody(await retry(w, failed.id))).toEqual({ success: true });
    expect((await syncOf(w, a.id)).status).toBe('SYNCED');
    expectErrorBody(await retry(w, failed.id), 409, 'CONFLICT');

    const { entry: b, sync } = await syncedEntry(w);
    await api.patch(`/entries/${b.id}`, { description: 'stale' }, { token: w.token });
    expect(expectOkBody(await retry(w, sync.id))).toEqual({ success: true });
    expect(external(w, sync.externalId).description).toBe('stale');

    failNext(w, 500, 3);
    const c = await createEntry(w);
    const again = expectOkBody(await push(w, c.id));
    failNext(w, 500, 3);
    expect(expectOkBody(await retry(w, again.id))).toEqual({ success: false });
    expect(await syncOf(w, c.id)).toMatchObject({ status: 'FAILED', attempts: 2 });
  });

  it('retry CONFLICT: external changed since our last sync → stays CONFLICT, success false; unchanged → push local → SYNCED', async () => {
    const { entry, sync } = await syncedEntry(w);
    await pull(w);
    await api.patch(`/entries/${entry.id}`, { description: 'local' }, { token: w.token });
    editExternally(w, sync.externalId, { description: 'remote' });
    await pull(w);
    const creates = providerCreates(w);
    expect(expectOkBody(await retry(w, sync.id))).toEqual({ success: false });
    const kept = await syncOf(w, entry.id);
    expect(kept).toMatchObject({ status: 'CONFLICT', externalVersion: sync.externalVersion });
    expect(kept.lastError).toMatch(/changed since the last sync/);
    expect(external(w, sync.externalId).description).toBe('remote');
    // the external record is back at the version we last synced: retry pushes the local entry
    setExternalVersion(w, sync.externalId, sync.externalVersion);
    expect(expectOkBody(await retry(w, sync.id))).toEqual({ success: true });
    expect(await syncOf(w, entry.id)).toMatchObject({ status: 'SYNCED' });
    expect(external(w, sync.externalId).description).toBe('local');
    expect(providerCreates(w)).toBe(creates);
  });

  it('retry-batch: each record on its own → {success, retried, failed}', async () => {
    const ok = await createEntry(w);
    failNext(w, 503, 3);
    const failedOk = expectOkBody(await push(w, ok.id));
    const { sync: synced } = await syncedEntry(w);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const res = expectOkBody(
      await api.post('/accounting/syncs/retry-batch', { syncIds: [failedOk.id, synced.id, unknown] }, { token: w.token }),
    );
    expect(res).toEqual({ success: false, retried: 1, failed: 2 });
    expect((await syncOf(w, ok.id)).status).toBe('SYNCED');
    const all = expectOkBody(await api.post('/accounting/syncs/retry-batch', { syncIds: [failedOk.id] }, { token: w.token }));
    expect(all).toEqual({ success: false, retried: 0, failed: 1 });
  });
});
