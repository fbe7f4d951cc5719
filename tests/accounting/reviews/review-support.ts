import { expect } from 'vitest';
import { events, getEntry } from '../../support/entries.js';
import type { ReviewWorld } from '../../support/factories/index.js';
import type { ApiResponse } from '../../support/http.js';
import { reviewsOf } from '../helpers.js';

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
