import { AsyncLocalStorage } from 'node:async_hooks';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { db } from '../../server/db/database.js';
import { ledger, type PreparedNewEntries } from '../../server/domains/entries/index.js';
import { reactions } from '../../server/domains/entries/core/reactions.js';
import { createEntry, createRule, ruleWorld, createConnection } from '../support/factories/index.js';
import { events } from '../support/entries.js';
import { startServer, type Api } from '../support/http.js';
import { expectStatus, reviewsOf } from '../accounting/helpers.js';
import { eventKinds, review } from '../accounting/reviews/review-support.js';

/**
 * Issue 28 / DESIGN §2a: the reactions of other domains (review queue, re-queue, cancelled reviews, STALE syncs,
 * documents a rule requests) return what must happen, and the core applies it. Every wired reaction (and the
 * afterInsert a rules reaction returns) runs marked here, and every member of `ledger` (the core as other domains
 * call it) records a call made while a reaction is on the stack (the same async context): a call back.
 */

let api: Api;
const running = new AsyncLocalStorage<string>();
const callsBack: string[] = [];

const marked =
  <A extends unknown[], R>(name: string, run: (...args: A) => R) =>
  (...args: A): R =>
    running.run(name, () => run(...args));

beforeAll(async () => {
  api = await startServer();
  const wired = reactions() as unknown as Record<string, unknown>;
  for (const [name, member] of Object.entries(wired)) {
    if (typeof member !== 'function') continue;
    const reaction = member as (...args: unknown[]) => unknown;
    wired[name] =
      name === 'entriesBeforeCreate'
        ? marked(name, async (...args: unknown[]) => {
            const prepared = (await reaction(...args)) as PreparedNewEntries;
            return { ...prepared, afterInsert: marked('afterInsert', prepared.afterInsert) };
          })
        : marked(name, reaction);
  }
  for (const name of Object.keys(ledger) as (keyof typeof ledger)[]) {
    const original = ledger[name] as (...args: unknown[]) => unknown;
    vi.spyOn(ledger, name).mockImplementation(((...args: unknown[]) => {
      const reaction = running.getStore();
      if (reaction !== undefined) callsBack.push(`ledger.${name} from ${reaction}`);
      return original(...args);
    }) as never);
  }
});

afterAll(() => {
  vi.restoreAllMocks();
});

describe('reactions return effects; the core applies them', () => {
  it('a create queued for review with a rule requesting a document, a re-queueing edit with a SYNCED copy, a void with an open review: each happens, none by calling the core back', async () => {
    const w = await ruleWorld(api);
    const connection = await createConnection(w, { requireReview: true });
    await createRule(w, {
      triggers: ['CREATE'],
      conditions: [{ field: 'description', operator: 'contains', value: 'taxi' }],
      actions: [{ type: 'REQUEST_DOCUMENT', documentName: 'Receipt', documentType: 'BASIS' }],
    });
    callsBack.length = 0;

    // create: DOCUMENT_REQUESTED (rules → documents), REVIEW_QUEUED and the move UNDER_REVIEW (accounting)
    const entry = await createEntry(w, { description: 'taxi to the airport' });
    expect(entry.entryStatus).toBe('UNDER_REVIEW');
    expect(entry.isComplete).toBe(false);
    expect(eventKinds(await events(w, entry.id))).toEqual([
      'ENTRY_CREATED',
      'RULE_APPLIED',
      'DOCUMENT_REQUESTED',
      'REVIEW_QUEUED',
      'STATUS_CHANGED',
    ]);
    const documents = await api.get(`/entries/${entry.id}/documents`, { token: w.token });
    expect(documents.body.map((d: { documentName: string; status: string }) => [d.documentName, d.status])).toEqual([
      ['Receipt', 'REQUESTED'],
    ]);

    // edit after CHANGES_REQUESTED, with a copy the connection holds: re-queued and STALE
    const [queued] = await reviewsOf(entry.id);
    expectStatus(await review.requestChanges({ ...w, connection }, queued.id), 200);
    await db().query(
      `INSERT INTO accounting_syncs (workspace_id, connection_id, entry_id, status, external_id, synced_at)
       VALUES ($1, $2, $3, 'SYNCED', 'ext-effects', now())`,
      { bind: [w.workspaceId, connection.id, entry.id], type: QueryTypes.INSERT },
    );
    const edited = await api.patch(`/entries/${entry.id}`, { amountCents: 1_234 }, { token: w.token });
    expectStatus(edited, 200);
    expect(edited.body.entryStatus).toBe('UNDER_REVIEW');
    expect(eventKinds(await events(w, entry.id)).slice(-4)).toEqual(['ENTRY_UPDATED', 'REVIEW_QUEUED', 'STATUS_CHANGED', 'SYNC_STALE']);

    // void: the open review CANCELLED
    const voided = await api.post(`/entries/${entry.id}/void`, { reason: 'duplicate' }, { token: w.token });
    expectStatus(voided, 200);
    expect((await reviewsOf(entry.id)).map((r) => r.status)).toEqual(['CANCELLED']);
    expect(eventKinds(await events(w, entry.id))).toContain('REVIEW_CANCELLED');
    expect((await api.get(`/entries/${entry.id}/events/verify`, { token: w.token })).body.valid).toBe(true);

    expect(callsBack).toEqual([]);
  });

  it('the detector sees a call back: a ledger operation run from inside a reaction is recorded', async () => {
    callsBack.length = 0;
    await ledger.closedPeriodsAt(undefined as never, 0, []);
    expect(callsBack).toEqual([]);
    await marked('entryEdited', () => ledger.closedPeriodsAt(undefined as never, 0, []))();
    expect(callsBack).toEqual(['ledger.closedPeriodsAt from entryEdited']);
  });
});
