import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../../server/db/database.js';
import {
  actor,
  addProjectMember,
  createEntry,
  entryIn,
  createConnection,
  queuedEntry,
  reviewWorld,
  type ReviewWorld,
} from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { CONNECTION_KEYS, expectStatus } from '../helpers.js';
import { review } from '../reviews/review-support.js';

const SUMMARY_KEYS = [
  'changesRequestedReviews',
  'conflictingSyncs',
  'failedSyncs',
  'rejectedReviews',
  'requestedDocuments',
  'staleSyncs',
  'unreconciledEntries',
];

let api: Api;

beforeAll(async () => {
  api = await startServer();
});

/** Sync records in states only the sync domain reaches (push, pull): written directly. */
async function syncIn(w: ReviewWorld, status: string, entryId: number, connectionId = w.connection.id) {
  await db().query(`INSERT INTO accounting_syncs (workspace_id, connection_id, entry_id, status) VALUES (:ws, :c, :e, :status)`, {
    replacements: { ws: w.workspaceId, c: connectionId, e: entryId, status },
  });
}

/** A workspace with a known number of everything the summaries count. */
async function populated(): Promise<ReviewWorld> {
  const w = await reviewWorld(api);
  const second = await createConnection(w, { name: 'second', requireReview: false });
  const r = [] as { entry: any; review: any }[];
  for (let i = 0; i < 7; i++) r.push(await queuedEntry(w)); // 7 QUEUED, 7 entries UNDER_REVIEW
  await review.assign(w, r[0].review.id); // IN_REVIEW
  await review.assign(w, r[1].review.id); // IN_REVIEW
  await review.approve(w, r[2].review.id); // APPROVED (+1 PENDING sync)
  await review.reject(w, r[3].review.id); // REJECTED
  await review.reject(w, r[4].review.id); // REJECTED
  await review.requestChanges(w, r[5].review.id); // CHANGES_REQUESTED
  // r[6] stays QUEUED
  await syncIn(w, 'SYNCED', r[0].entry.id);
  await syncIn(w, 'FAILED', r[1].entry.id);
  await syncIn(w, 'FAILED', r[1].entry.id, second.id);
  await syncIn(w, 'STALE', r[3].entry.id);
  await syncIn(w, 'CONFLICT', r[4].entry.id);
  await syncIn(w, 'CONFLICT', r[5].entry.id);
  await syncIn(w, 'CONFLICT', r[6].entry.id);
  // entries: 7 above (all unreconciled, none voided) + these
  await api.patch(`/entries/${r[6].entry.id}/reconcile`, { isReconciled: true }, { token: w.token }); // reconciled: not counted
  // each of these three is auto-queued too; the voided and the cancelled one's reviews become CANCELLED
  // (CONTRACT §8: in no counter), so the QUEUED reviews are r[6] and the last one
  await entryIn(w, 'VOIDED'); // not an unreconciled entry
  await entryIn(w, 'CANCELLED'); // not an unreconciled entry
  const docs = await createEntry(w); // an unreconciled entry (UNDER_REVIEW)
  for (const name of ['Invoice', 'Receipt']) {
    const res = await api.post(`/entries/${docs.id}/documents/request`, { documentName: name, documentType: 'BASIS' }, { token: w.token });
    expectStatus(res, 200);
  }
  return w;
}

const EXPECTED_SUMMARY = {
  failedSyncs: 2,
  staleSyncs: 1,
  conflictingSyncs: 3,
  unreconciledEntries: 7,
  requestedDocuments: 2,
  rejectedReviews: 2,
  changesRequestedReviews: 1,
};

describe('GET /accounting/exceptions/summary', () => {
  it('counts exactly the spec fields, scoped to the workspace', async () => {
    const w = await populated();
    await populated(); // another workspace with the same data changes nothing here
    const res = await api.get('/accounting/exceptions/summary', { token: w.token, query: { workspaceId: w.workspaceId } });
    expectStatus(res, 200);
    expect(Object.keys(res.body).sort()).toEqual(SUMMARY_KEYS);
    expect(res.body).toEqual(EXPECTED_SUMMARY);
  });

  it('an empty workspace has zeros', async () => {
    const w = await reviewWorld(api);
    const res = await api.get('/accounting/exceptions/summary', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(res.body).toEqual(Object.fromEntries(SUMMARY_KEYS.map((k) => [k, 0])));
  });
});

describe('GET /accounting/dashboard', () => {
  it('reviewStats, syncStats, connections and the exception summary of the workspace', async () => {
    const w = await populated();
    const res = await api.get('/accounting/dashboard', { token: w.token, query: { workspaceId: w.workspaceId } });
    expectStatus(res, 200);
    expect(Object.keys(res.body).sort()).toEqual(['connections', 'exceptionSummary', 'reviewStats', 'syncStats']);
    expect(res.body.reviewStats).toEqual({ queued: 2, inReview: 2, approved: 1, rejected: 2, changesRequested: 1 });
    expect(res.body.syncStats).toEqual({ pending: 1, synced: 1, failed: 2, stale: 1, conflict: 3 });
    expect(res.body.exceptionSummary).toEqual(EXPECTED_SUMMARY);
    expect(res.body.connections.map((c: any) => c.name)).toEqual(['Books', 'second']);
    for (const c of res.body.connections) expect(Object.keys(c).sort()).toEqual(CONNECTION_KEYS);
  });
});

describe('access to the summaries', () => {
  it('any workspace member (no particular permission); non-members and project-only members 403; no token 401; workspaceId required', async () => {
    const w = await reviewWorld(api);
    const noPermissions = await actor(api, { workspaceId: w.workspaceId, permissions: [] });
    const outsider = await actor(api);
    const projectOnly = await actor(api);
    await addProjectMember(w.projectId, projectOnly.id);
    for (const path of ['/accounting/exceptions/summary', '/accounting/dashboard']) {
      expectStatus(await api.get(path, { token: noPermissions.token, query: { workspaceId: w.workspaceId } }), 200);
      expectErrorBody(await api.get(path, { token: outsider.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
      expectErrorBody(await api.get(path, { token: projectOnly.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
      expectErrorBody(await api.get(path, { query: { workspaceId: w.workspaceId } }), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.get(path, { token: w.token }), 400, 'BAD_REQUEST');
    }
  });
});

describe('counted in SQL', () => {
  const statements: string[] = [];
  afterEach(() => {
    delete (db().options as { logging?: unknown }).logging;
    db().options.logging = false;
  });

  async function accountingQueries(w: ReviewWorld, path: string): Promise<string[]> {
    statements.length = 0;
    db().options.logging = (sql: string) => void statements.push(sql);
    expectStatus(await api.get(path, { token: w.token, query: { workspaceId: w.workspaceId } }), 200);
    db().options.logging = false;
    return statements.filter((s) => /accounting_|entry_documents/.test(s));
  }

  it('the same fixed number of statements whatever the amount of data (no N+1)', async () => {
    const small = await reviewWorld(api);
    const large = await populated();
    for (let i = 0; i < 3; i++) await createConnection(large, { name: `extra ${i}` });
    const dash = [await accountingQueries(small, '/accounting/dashboard'), await accountingQueries(large, '/accounting/dashboard')];
    const summary = [
      await accountingQueries(small, '/accounting/exceptions/summary'),
      await accountingQueries(large, '/accounting/exceptions/summary'),
    ];
    expect(dash.map((q) => q.length)).toEqual([2, 2]);
    expect(summary.map((q) => q.length)).toEqual([1, 1]);
    expect(summary[1][0]).toMatch(/count\(\*\) FILTER/);
  });
});
