import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEntry, PROVIDERS, syncWorld, type SyncWorld } from '../../support/factories/index.js';
import { events } from '../../support/entries.js';
import { startServer, type Api } from '../../support/http.js';
import {
  expectOkBody,
  external,
  providerCreates,
  push,
  startEmulators,
  stopEmulators,
  syncOf,
  syncRows,
  type Emulators,
} from './helpers.js';

/** Pushes of one (connection, entry) are serialised (CONTRACT §9: racing pushes create one external record). */
let api: Api;
let e: Emulators;

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
});
afterAll(() => stopEmulators(e));

const slowWrites = (w: SyncWorld, delayMs: number, times = 1) =>
  (w.kind === 'QUICKBOOKS' ? e.qb : e.generic).inject({
    delayMs,
    times,
    match: (r) => r.method !== 'GET' && !r.path.startsWith('/oauth2'),
  });

describe.each(PROVIDERS)('racing pushes with %s', (kind) => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await syncWorld(api, kind, e);
  });

  it('10 parallel pushes of one entry: the provider sees exactly 1 create, all 10 answer the same SYNCED record', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const entry = await createEntry(w);
      const creates = providerCreates(w);
      const results = await Promise.all(Array.from({ length: 10 }, () => push(w, entry.id)));
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(providerCreates(w) - creates).toBe(1);
      const ids = new Set(results.map((r) => `${r.body.id}/${r.body.externalId}/${r.body.status}`));
      expect(ids.size).toBe(1);
      expect(results[0].body.status).toBe('SYNCED');
      expect(await syncRows(entry.id)).toHaveLength(1);
      const kinds = (await events(w, entry.id)).map((x: any) => x.kind);
      expect(kinds.filter((k: string) => k === 'SYNC_PUSHED')).toHaveLength(1);
      expect((await api.get(`/entries/${entry.id}/events/verify`, { token: w.token })).body.valid).toBe(true);
    }
  });

  it('10 parallel pushes while the provider is slow (300 ms): still 1 create', async () => {
    const entry = await createEntry(w);
    const creates = providerCreates(w);
    slowWrites(w, 300);
    const results = await Promise.all(Array.from({ length: 10 }, () => push(w, entry.id)));
    expect(results.every((r) => r.status === 200 && r.body.status === 'SYNCED')).toBe(true);
    expect(providerCreates(w) - creates).toBe(1);
  });

  it('an edit during a slow push is not blocked by it, and the record ends STALE (what was sent is outdated)', async () => {
    const entry = await createEntry(w, { description: 'as sent' });
    slowWrites(w, 600);
    const pushing = push(w, entry.id);
    await new Promise((r) => setTimeout(r, 150));
    const started = Date.now();
    const edit = await api.patch(`/entries/${entry.id}`, { description: 'edited meanwhile' }, { token: w.token });
    const editMs = Date.now() - started;
    expect(edit.status).toBe(200);
    expect(editMs).toBeLessThan(400); // not waiting for the provider call
    const pushed = expectOkBody(await pushing);
    expect(pushed.status).toBe('STALE');
    expect(external(w, pushed.externalId).description).toBe('as sent');
    const last = (await events(w, entry.id)).at(-1);
    expect(last).toMatchObject({ kind: 'SYNC_STALE', data: expect.objectContaining({ cause: 'CHANGED_DURING_PUSH' }) });
    const again = expectOkBody(await push(w, entry.id));
    expect(again.status).toBe('SYNCED');
    expect(external(w, pushed.externalId).description).toBe('edited meanwhile');
    expect((await syncOf(w, entry.id)).externalId).toBe(pushed.externalId);
  });

  it('pushes of different entries are not serialised with each other', async () => {
    const entries = await Promise.all(Array.from({ length: 5 }, () => createEntry(w)));
    slowWrites(w, 300, 5);
    const started = Date.now();
    const results = await Promise.all(entries.map((x) => push(w, x.id)));
    const elapsed = Date.now() - started;
    expect(results.every((r) => r.body.status === 'SYNCED')).toBe(true);
    expect(elapsed).toBeLessThan(5 * 300);
  });
});
