import { expect } from 'vitest';
import { createEntry, events, getEntry } from '../../support/entries.js';
import type { ApiResponse } from '../../support/http.js';
import { accountingWorld, createConnection, reviewsOf, type AccountingWorld } from '../helpers.js';
import type { Api } from '../../support/http.js';

export type ReviewWorld = AccountingWorld & { connection: any };

/** A workspace whose one connection (MANUAL provider, `syncMode` as given) requires review of every project. */
export async function reviewWorld(api: Api, connection: Record<string, unknown> = {}): Promise<ReviewWorld> {
  const w = await accountingWorld(api);
  return { ...w, connection: await createConnection(w, { requireReview: true, ...connection }) };
}

/** A new entry, auto-queued for review; returns it with its review (as the API shows it). */
export async function queuedEntry(w: ReviewWorld, overrides: Record<string, unknown> = {}): Promise<{ entry: any; review: any }> {
  const entry = await createEntry(w, overrides);
  const res = await w.api.get('/accounting/reviews', { token: w.token, query: { workspaceId: w.workspaceId, entryId: entry.id } });
  expect(res.status, res.text).toBe(200);
  expect(res.body.items).toHaveLength(1);
  return { entry, review: res.body.items[0] };
}

export const review = {
  assign: (w: ReviewWorld, id: string, token = w.token) => w.api.patch(`/accounting/reviews/${id}/assign`, undefined, { token }),
  approve: (w: ReviewWorld, id: string, body: Record<string, unknown> = {}, token = w.token) =>
    w.api.patch(`/accounting/reviews/${id}/approve`, body, { token }),
  /** `notes` null sends no notes at all */
  reject: (w: ReviewWorld, id: string, notes: string | null = 'Not ours', token = w.token) =>
    w.api.patch(`/accounting/reviews/${id}/reject`, notes === null ? {} : { notes }, { token }),
  requestChanges: (w: ReviewWorld, id: string, notes: string | null = 'Attach the invoice', token = w.token) =>
    w.api.patch(`/accounting/reviews/${id}/request-changes`, notes === null ? {} : { notes }, { token }),
  get: (w: ReviewWorld, id: string, token = w.token) => w.api.get(`/accounting/reviews/${id}`, { token }),
};

/** The review, its entry and the entry's events: proof that a refused call changed nothing. */
export async function reviewSnapshot(w: ReviewWorld, reviewId: string, entryId: number) {
  const r = await review.get(w, reviewId);
  return { review: r.body, entry: await getEntry(w, entryId), events: (await events(w, entryId)).length, rows: await reviewsOf(entryId) };
}

export function eventKinds(list: any[]): string[] {
  return list.map((e) => e.kind);
}

export function expectOkStatus(res: ApiResponse): void {
  expect(res.status, res.text).toBe(200);
}
