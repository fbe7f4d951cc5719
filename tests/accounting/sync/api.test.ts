import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  actor,
  addProjectMember,
  createEntry,
  queuedEntry,
  createCategory,
  GENERIC_TOKEN,
  syncWorld,
  type SyncWorld,
} from '../../support/factories/index.js';
import { events, getEntry } from '../../support/entries.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { review } from '../reviews/review-support.js';
import {
  expectOkBody,
  failNext,
  providerRequests,
  push,
  startEmulators,
  stopEmulators,
  syncOf,
  syncRows,
  type Emulators,
} from './helpers.js';

/** The sync endpoints as a client sees them: dry runs, lists, approvals that push, access and permissions. */
let api: Api;
let e: Emulators;

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
});
afterAll(() => stopEmulators(e));

describe('dryRun', () => {
  it('generic: returns the exact request a push sends, and sends nothing, stores nothing', async () => {
    // syncMode MANUAL: the approval itself creates no sync record
    const w = await syncWorld(api, 'GENERIC', e, { requireReview: true, syncMode: 'MANUAL' });
    const category = await createCategory(w, { externalId: 'acc-100', accountType: 'EXPENSE' });
    const mapping = await api.post(
      '/accounting/mappings/parties',
      { connectionId: w.connection.id, partyId: w.parties[1], externalId: 'p-1', externalType: 'VENDOR', externalName: 'Globex' },
      { token: w.token },
    );
    expect(mapping.status, mapping.text).toBe(200);
    // the category comes from the entry's APPROVED review for this connection
    const { entry, review: r } = await queuedEntry(w);
    expect((await review.approve(w, r.id, { categoryId: category.id })).status).toBe(200);
    const requests = providerRequests(w);
    const preview = expectOkBody(await push(w, entry.id, { dryRun: true }));
    expect(preview).toEqual({
      dryRun: true,
      operation: 'CREATE',
      sync: null,
      request: {
        method: 'POST',
        url: `${e.generic.baseUrl}/entries`,
        body: {
          localId: entry.id,
          entryType: 'EXPENSE',
          amountCents: 10_000,
          currency: 'USD',
          entryDate: '2026-01-15',
          description: 'Office chairs',
          reference: 'INV-1',
          voided: false,
          fromParty: { name: 'Acme Ltd' },
          toParty: { externalId: 'p-1', name: 'Globex' },
          categoryExternalId: 'acc-100',
        },
      },
    });
    expect(providerRequests(w)).toBe(requests);
    expect(await syncRows(entry.id)).toEqual([]);
    const pushed = expectOkBody(await push(w, entry.id));
    const sent = e.generic.creates().at(-1)!;
    expect(sent.body).toEqual(preview.request.body);
    expect(sent.headers.authorization).toBe(`Bearer ${GENERIC_TOKEN}`);
    // an update's preview names the PUT; an unchanged SYNCED entry previews NONE
    expect(expectOkBody(await push(w, entry.id, { dryRun: true }))).toMatchObject({
      operation: 'NONE',
      request: null,
      sync: { id: pushed.id, status: 'SYNCED' },
    });
    await api.patch(`/entries/${entry.id}`, { amountCents: 11_000 }, { token: w.token });
    const update = expectOkBody(await push(w, entry.id, { dryRun: true }));
    expect(update).toMatchObject({
      operation: 'UPDATE',
      request: { method: 'PUT', url: `${e.generic.baseUrl}/entries/${pushed.externalId}` },
      sync: { status: 'STALE' },
    });
    expect(update.request.body.amountCents).toBe(11_000);
  });

  it('QuickBooks: the Purchase body and URL (realm, minorversion, requestid) equal what the push then sends', async () => {
    const w = await syncWorld(api, 'QUICKBOOKS', e);
    const entry = await createEntry(w, { amountCents: 1_999 });
    const preview = expectOkBody(await push(w, entry.id, { dryRun: true }));
    expect(preview.operation).toBe('CREATE');
    expect(preview.request.url).toMatch(
      new RegExp(`^${e.qb.baseUrl}/v3/company/${e.qb.realmId}/purchase\\?requestid=[0-9a-f]{32}&minorversion=75$`),
    );
    expect(preview.request.body).toMatchObject({ PaymentType: 'Cash', TxnDate: '2026-01-15', Line: [{ Amount: 19.99 }] });
    const calls = e.qb.calls('/purchase').length;
    expectOkBody(await push(w, entry.id));
    const sent = e.qb.calls('/purchase').at(-1)!;
    expect(e.qb.calls('/purchase').length).toBe(calls + 1);
    expect(`${e.qb.baseUrl}${sent.path}?${sent.query.toString()}`).toBe(preview.request.url);
    expect(sent.body).toEqual(preview.request.body);
  });

  it('MANUAL: the payload with no request target; the push records SYNCED with externalId manual-<entryId>', async () => {
    const w = await syncWorld(api, 'MANUAL', e);
    const entry = await createEntry(w);
    const preview = expectOkBody(await push(w, entry.id, { dryRun: true }));
    expect(preview).toMatchObject({ operation: 'CREATE', request: { method: null, url: null, body: { localId: entry.id } } });
    const sync = expectOkBody(await push(w, entry.id));
    expect(sync).toMatchObject({ status: 'SYNCED', externalId: `manual-${entry.id}`, externalVersion: '1' });
    await api.patch(`/entries/${entry.id}`, { description: 'new' }, { token: w.token });
    expect(expectOkBody(await push(w, entry.id))).toMatchObject({
      status: 'SYNCED',
      externalId: `manual-${entry.id}`,
      externalVersion: '2',
    });
  });
});

describe('approval pushes (AUTO_PUSH, BIDIRECTIONAL)', () => {
  it.each(['AUTO_PUSH', 'BIDIRECTIONAL'])('%s: approving pushes right after the commit → SYNCED (actor SYSTEM)', async (syncMode) => {
    const w = await syncWorld(api, 'QUICKBOOKS', e, { syncMode, requireReview: true });
    const { entry, review: r } = await queuedEntry(w);
    const approved = await review.approve(w, r.id);
    expect(approved.body).toMatchObject({ status: 'APPROVED', entry: { entryStatus: 'COMPLETED' } });
    const sync = await syncOf(w, entry.id);
    expect(sync).toMatchObject({ status: 'SYNCED', attempts: 1 });
    expect(e.qb.purchases.get(sync.externalId)).toBeTruthy();
    const last = (await events(w, entry.id)).at(-1);
    expect(last).toMatchObject({ kind: 'SYNC_PUSHED', actorType: 'SYSTEM', actorId: null });
  });

  it('a failed push leaves the review APPROVED and the sync FAILED with lastError', async () => {
    const w = await syncWorld(api, 'GENERIC', e, { syncMode: 'AUTO_PUSH', requireReview: true });
    const { entry, review: r } = await queuedEntry(w);
    failNext(w, 503, 3);
    const approved = await review.approve(w, r.id);
    expect(approved.status).toBe(200);
    expect((await review.get(w, r.id)).body.status).toBe('APPROVED');
    expect(await syncOf(w, entry.id)).toMatchObject({ status: 'FAILED', attempts: 1, lastError: expect.stringMatching(/503/) });
    expect((await getEntry(w, entry.id)).entryStatus).toBe('COMPLETED');
  });

  it('a push precondition that does not hold is recorded as FAILED naming the cause', async () => {
    const w = await syncWorld(api, 'GENERIC', e, { syncMode: 'AUTO_PUSH', requireReview: true, requireCompletenessForSync: true });
    const { entry, review: r } = await queuedEntry(w);
    const requests = providerRequests(w);
    expect((await review.approve(w, r.id)).status).toBe(200);
    expect(await syncOf(w, entry.id)).toMatchObject({
      status: 'FAILED',
      externalId: null,
      lastError: expect.stringMatching(/requireCompletenessForSync/),
    });
    expect(providerRequests(w)).toBe(requests);
  });
});

describe('lists, access and permissions', () => {
  let w: SyncWorld;
  let other: SyncWorld;
  let failedId: string;
  let syncedId: string;
  let entryId: number;
  beforeAll(async () => {
    w = await syncWorld(api, 'GENERIC', e);
    other = await syncWorld(api, 'GENERIC', e);
    const a = await createEntry(w, { description: 'first', amountCents: 111 });
    failNext(w, 500, 3);
    failedId = expectOkBody(await push(w, a.id)).id;
    const b = await createEntry(w, { entryType: 'INCOME', description: 'second', amountCents: 222 });
    syncedId = expectOkBody(await push(w, b.id)).id;
    entryId = b.id;
  });

  it('GET /accounting/syncs: a page of records with connection and entry context, filtered by status', async () => {
    const all = expectOkBody(await api.get('/accounting/syncs', { token: w.token, query: { workspaceId: w.workspaceId } }));
    expect(all).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(all.items.map((s: any) => s.id)).toEqual([syncedId, failedId]);
    expect(all.items[0].connection).toEqual({ id: w.connection.id, name: w.connection.name, providerType: 'ACME_BOOKS' });
    expect(all.items[0].entry).toEqual({
      id: entryId,
      entryType: 'INCOME',
      entryStatus: 'PENDING',
      amountCents: 222,
      baseCurrency: 'USD',
      entryDate: '2026-01-15',
      description: 'second',
    });
    const failed = expectOkBody(
      await api.get('/accounting/syncs', { token: w.token, query: { workspaceId: w.workspaceId, status: 'FAILED' } }),
    );
    expect(failed.items.map((s: any) => s.id)).toEqual([failedId]);
    expect(failed.total).toBe(1);
    const paged = expectOkBody(
      await api.get('/accounting/syncs', { token: w.token, query: { workspaceId: w.workspaceId, limit: 1, offset: 1 } }),
    );
    expect(paged).toMatchObject({ total: 2, limit: 1, offset: 1, items: [{ id: failedId }] });
    expectErrorBody(
      await api.get('/accounting/syncs', { token: w.token, query: { workspaceId: w.workspaceId, limit: 101 } }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.get('/accounting/syncs', { token: w.token, query: { workspaceId: w.workspaceId, status: 'LOST' } }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(await api.get('/accounting/syncs', { token: w.token }), 400, 'BAD_REQUEST');
  });

  it('a foreign workspaceId is 403; foreign connection, sync and entry ids are 404', async () => {
    expectErrorBody(await api.get('/accounting/syncs', { token: other.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    const t = other.token;
    expectErrorBody(await api.get(`/accounting/sync/entry/${entryId}`, { token: t }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get(`/accounting/sync/pending/${w.connection.id}`, { token: t }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(`/accounting/syncs/${failedId}/retry`, undefined, { token: t }), 404, 'NOT_FOUND');
    expectErrorBody(
      await api.post('/accounting/sync/resolve-conflict', { syncId: failedId, resolution: 'KEEP_LOCAL' }, { token: t }),
      404,
      'NOT_FOUND',
    );
    expectErrorBody(await api.post('/accounting/sync/push', { entryId, connectionId: w.connection.id }, { token: t }), 404, 'NOT_FOUND');
    expectErrorBody(
      await api.post('/accounting/sync/push', { entryId, connectionId: other.connection.id }, { token: t }),
      404,
      'NOT_FOUND',
    );
    for (const path of ['pull', 'pull-chart-of-accounts', 'pull-parties']) {
      expectErrorBody(await api.post(`/accounting/sync/${path}`, { connectionId: w.connection.id }, { token: t }), 404, 'NOT_FOUND');
    }
    const batch = expectOkBody(await api.post('/accounting/syncs/retry-batch', { syncIds: [failedId] }, { token: t }));
    expect(batch).toEqual({ success: false, retried: 0, failed: 1 });
    expect((await syncOf(w, (await syncRows(entryId))[0].entry_id)).status).toBe('SYNCED');
    // an entry of another workspace, pushed to this workspace's connection: 404, even for a member of both
    const both = await actor(api, { workspaceIds: [w.workspaceId, other.workspaceId] });
    const foreignEntry = await createEntry(other);
    expectErrorBody(
      await api.post('/accounting/sync/push', { entryId: foreignEntry.id, connectionId: w.connection.id }, { token: both.token }),
      404,
      'NOT_FOUND',
    );
  });

  it('a project member (not a workspace member) does not see sync records: 404', async () => {
    const projectOnly = await actor(api);
    await addProjectMember(w.projectId, projectOnly.id);
    expectErrorBody(await api.get(`/accounting/sync/entry/${entryId}`, { token: projectOnly.token }), 404, 'NOT_FOUND');
  });

  it('every sync operation needs accounting.manage (403 before any scope check)', async () => {
    const lacking = await actor(api, { workspaceId: w.workspaceId, permissions: ['accounting.review', 'entry.create'] });
    const t = lacking.token;
    const calls = [
      api.post('/accounting/sync/push', { entryId, connectionId: w.connection.id }, { token: t }),
      api.post('/accounting/sync/pull', { connectionId: w.connection.id }, { token: t }),
      api.post('/accounting/sync/pull-chart-of-accounts', { connectionId: w.connection.id }, { token: t }),
      api.post('/accounting/sync/pull-parties', { connectionId: w.connection.id }, { token: t }),
      api.post('/accounting/sync/resolve-conflict', { syncId: failedId, resolution: 'KEEP_LOCAL' }, { token: t }),
      api.get(`/accounting/sync/entry/${entryId}`, { token: t }),
      api.get(`/accounting/sync/pending/${w.connection.id}`, { token: t }),
      api.get('/accounting/syncs', { token: t, query: { workspaceId: w.workspaceId } }),
      api.post(`/accounting/syncs/${failedId}/retry`, undefined, { token: t }),
      api.post('/accounting/syncs/retry-batch', { syncIds: [failedId] }, { token: t }),
    ];
    for (const res of await Promise.all(calls)) expectErrorBody(res, 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/accounting/syncs', { query: { workspaceId: w.workspaceId } }), 401, 'UNAUTHORIZED');
  });

  it('write bodies are strict, batches bounded', async () => {
    expectErrorBody(
      await api.post('/accounting/sync/push', { entryId, connectionId: w.connection.id, force: true }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    const many = Array.from({ length: 101 }, () => failedId);
    expectErrorBody(await api.post('/accounting/syncs/retry-batch', { syncIds: many }, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.post('/accounting/syncs/retry-batch', { syncIds: [] }, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await api.post('/accounting/sync/pull', { connectionId: w.connection.id, since: 'yesterday' }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
  });
});
