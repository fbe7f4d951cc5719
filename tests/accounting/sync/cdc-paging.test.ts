import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Api } from '../../support/http.js';
import { syncedEntry, syncWorld, type SyncWorld } from '../../support/factories/index.js';
import { expectOkBody, pull, startEmulators, stopEmulators, type Emulators } from './helpers.js';

/**
 * Issue 18 item 8b: one QuickBooks change data capture answer holds at most 1,000 objects. A pull
 * reads them all (answer after answer) and only then moves lastPulledAt, so no change is skipped.
 */
let api: Api;
let e: Emulators;
let w: SyncWorld;

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
  w = await syncWorld(api, 'QUICKBOOKS', e);
});
afterAll(() => stopEmulators(e));

describe('QuickBooks change data capture beyond 1,000 changes', () => {
  it('a change after the first 1,000 is pulled (answer after answer) and applied', async () => {
    const { entry, sync } = await syncedEntry(w);
    expect(expectOkBody(await pull(w))).toMatchObject({ updated: 0 });
    // 1,500 other changes, all before the one that matters (each at its own millisecond)
    const template = e.qb.purchases.get(sync.externalId)!;
    const start = Date.now() - 60_000;
    for (let i = 0; i < 1_500; i++) {
      const Id = `bulk-${i}`;
      const at = new Date(start + i).toISOString();
      e.qb.purchases.set(Id, { ...template, Id, MetaData: { CreateTime: at, LastUpdatedTime: at } });
    }
    e.qb.editExternally('Purchase', sync.externalId, { PrivateNote: 'changed after 1,500 others' });
    const cdcBefore = e.qb.calls('/cdc', 'GET').length;
    const pulled = expectOkBody(await pull(w, { since: new Date(start - 1_000).toISOString() }));
    expect(pulled).toMatchObject({ updated: 1 });
    expect(pulled.pulled).toBeGreaterThanOrEqual(1_501);
    expect(e.qb.calls('/cdc', 'GET').length - cdcBefore).toBeGreaterThanOrEqual(2);
    const after = await api.get(`/entries/${entry.id}`, { token: w.token });
    expect(after.body.description).toBe('changed after 1,500 others');
  });

  it('lastPulledAt does not move past changes not read: a plain pull (from lastPulledAt) after many changes still applies the last one', async () => {
    const { entry, sync } = await syncedEntry(w);
    expectOkBody(await pull(w));
    const template = e.qb.purchases.get(sync.externalId)!;
    const start = Date.now();
    for (let i = 0; i < 1_200; i++) {
      const Id = `bulk2-${i}`;
      const at = new Date(start + i).toISOString();
      e.qb.purchases.set(Id, { ...template, Id, MetaData: { CreateTime: at, LastUpdatedTime: at } });
    }
    await new Promise((r) => setTimeout(r, 1_250)); // the bulk changes are in the past now
    e.qb.editExternally('Purchase', sync.externalId, { PrivateNote: 'the 1,201st change' });
    expect(expectOkBody(await pull(w))).toMatchObject({ updated: 1 });
    expect((await api.get(`/entries/${entry.id}`, { token: w.token })).body.description).toBe('the 1,201st change');
  });
});
