import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEntry,
  type EntryWorld,
  queuedEntry,
  reviewWorld,
  syncedEntry,
  syncWorld,
  camt053,
  imported,
  type BankWorld,
} from '../support/factories/index.js';
import { events, expectOk, getEntry, setStatus } from '../support/entries.js';
import { expectErrorBody, startServer, type Api, type ApiResponse } from '../support/http.js';
import { review } from '../accounting/reviews/review-support.js';
import { editExternally, expectOkBody, pull, startEmulators, stopEmulators, syncOf, type Emulators } from '../accounting/sync/helpers.js';
import { lines, rowCount } from './helpers.js';

/**
 * Issue 28, holes 1 and 2 (CONTRACT §14 "A match always balances"): whatever route changes a matched entry,
 * its match either stays balanced or goes. An edit of a matched entry's amount is a 409 (PATCH) or a CONFLICT
 * (sync pull); a move to REJECTED or CANCELLED dissolves the match as a void does (PATCH status, review
 * reject, inbound webhook ENTRY_REJECTED).
 */
let api: Api;
let e: Emulators;
beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
});
afterAll(() => stopEmulators(e));

/** A USD bank account in the world's workspace, with one money-out line of 100.00 (an EXPENSE of 10_000 matches it). */
async function withAccount<W extends EntryWorld>(w: W): Promise<W & BankWorld & { line: any }> {
  const res = await w.api.post(
    '/bank-accounts',
    { workspaceId: w.workspaceId, name: 'Main', currency: 'USD', projectId: w.projectId, partyId: w.parties[0], autoMatch: false },
    { token: w.token },
  );
  expectOk(res, 'create bank account');
  const bw = { ...w, account: res.body };
  await imported(
    bw,
    camt053([{ date: '2026-01-15', amount: '-100.00', name: 'Supplier', memo: 'Chairs', id: `L-${randomUUID()}` }], { currency: 'USD' }),
  );
  const [line] = await lines(bw);
  return { ...bw, line };
}

async function matched(w: BankWorld & { line: any }, entryId: number): Promise<string> {
  const res = await w.api.post('/reconciliation/matches', { lineIds: [w.line.id], entryIds: [entryId] }, { token: w.token });
  expect(res.status, res.text).toBe(200);
  return res.body.id;
}

/** The match still stands, with its line MATCHED and its entry reconciled. */
async function expectStanding(w: BankWorld & { line: any }, matchId: string, entryId: number): Promise<void> {
  expect(await rowCount('bank_matches', 'id = :id', { id: matchId })).toBe(1);
  expect(await rowCount('bank_lines', "id = :id AND status = 'MATCHED' AND match_id = :m", { id: w.line.id, m: matchId })).toBe(1);
  expect(await getEntry(w, entryId)).toMatchObject({ isReconciled: true, amountCents: 10_000 });
}

/** The match is gone: line UNMATCHED, entry unreconciled with UNRECONCILED {matchId} after its status change. */
async function expectDissolved(w: BankWorld & { line: any }, matchId: string, entryId: number, status: string): Promise<void> {
  expect(await rowCount('bank_matches', 'id = :id', { id: matchId })).toBe(0);
  expect(await rowCount('bank_lines', "id = :id AND status = 'UNMATCHED' AND match_id IS NULL", { id: w.line.id })).toBe(1);
  expect(await getEntry(w, entryId)).toMatchObject({ entryStatus: status, isReconciled: false, reconciledAt: null, reconciledBy: null });
  const kinds = (await events(w, entryId)).map((ev) => ev.kind);
  expect(kinds.at(-1)).toBe('UNRECONCILED');
  expect((await events(w, entryId)).at(-1).data).toEqual({ matchId });
}

describe('a match always balances: amount edits of a matched entry (hole 1)', () => {
  it('PATCH /entries/{id} {amountCents} of a matched entry: 409 naming the match, nothing changes; other fields still edit', async () => {
    const w = await withAccount(await syncWorld(api, 'MANUAL', e));
    const entry = await createEntry(w, { amountCents: 10_000 });
    const matchId = await matched(w, entry.id);
    const before = (await events(w, entry.id)).length;
    const refused = await w.api.patch(`/entries/${entry.id}`, { amountCents: 99 }, { token: w.token });
    expectErrorBody(refused, 409, 'CONFLICT');
    expect(refused.body.message).toContain(matchId);
    await expectStanding(w, matchId, entry.id);
    expect((await events(w, entry.id)).length).toBe(before);
    // the same amount, or fields the balance does not read, are fine
    expect((await w.api.patch(`/entries/${entry.id}`, { amountCents: 10_000, description: 'Chairs' }, { token: w.token })).status).toBe(
      200,
    );
    expect((await w.api.patch(`/entries/${entry.id}`, { entryDate: '2026-01-16' }, { token: w.token })).status).toBe(200);
    await expectStanding(w, matchId, entry.id);
    // after the match is deleted the amount edits again
    expect((await w.api.del(`/reconciliation/matches/${matchId}`, { token: w.token })).status).toBe(200);
    const ok = await w.api.patch(`/entries/${entry.id}`, { amountCents: 99 }, { token: w.token });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.amountCents).toBe(99);
  });

  it('a sync pull (custom provider) that changes a matched entry’s amount: CONFLICT, the entry and its match unchanged', async () => {
    const w = await withAccount(await syncWorld(api, 'GENERIC', e));
    const { entry, sync } = await syncedEntry(w, { amountCents: 10_000 });
    await pull(w);
    const matchId = await matched(w, entry.id);
    editExternally(w, sync.externalId, { amountCents: 99 });
    expect(expectOkBody(await pull(w))).toEqual({ pulled: 1, updated: 0, conflicts: 1 });
    const conflicted = await syncOf(w, entry.id);
    expect(conflicted.status).toBe('CONFLICT');
    expect(conflicted.lastError).toContain(matchId);
    await expectStanding(w, matchId, entry.id);
    // KEEP_EXTERNAL cannot apply it either (409) while the match stands
    const kept = await w.api.post(
      '/accounting/sync/resolve-conflict',
      { syncId: sync.id, resolution: 'KEEP_EXTERNAL' },
      { token: w.token },
    );
    expectErrorBody(kept, 409, 'CONFLICT');
    await expectStanding(w, matchId, entry.id);
  });

  it('a pull that changes only what the balance does not read (description) still applies to a matched entry', async () => {
    const w = await withAccount(await syncWorld(api, 'GENERIC', e));
    const { entry, sync } = await syncedEntry(w, { amountCents: 10_000 });
    await pull(w);
    const matchId = await matched(w, entry.id);
    editExternally(w, sync.externalId, { description: 'Changed in the books' });
    expect(expectOkBody(await pull(w))).toEqual({ pulled: 1, updated: 1, conflicts: 0 });
    expect(await getEntry(w, entry.id)).toMatchObject({ description: 'Changed in the books' });
    await expectStanding(w, matchId, entry.id);
  });
});

describe('REJECTED and CANCELLED entries lose their match, as voided ones do (hole 2)', () => {
  it.each(['CANCELLED', 'REJECTED'])('PATCH /entries/{id}/status %s dissolves the match in the same transaction', async (status) => {
    const w = await withAccount(await syncWorld(api, 'MANUAL', e));
    const entry = await createEntry(w, { amountCents: 10_000 });
    const matchId = await matched(w, entry.id);
    const res = await setStatus(w, entry.id, status, 'not ours');
    expect(res.status, res.text).toBe(200);
    // the answer is the row after the dissolve
    expect(res.body).toMatchObject({ entryStatus: status, isReconciled: false, reconciledAt: null });
    await expectDissolved(w, matchId, entry.id, status);
    // the line is free again: another entry can take it
    const other = await createEntry(w, { amountCents: 10_000 });
    await matched(w, other.id);
  });

  it('review reject dissolves the match of its entry', async () => {
    const rw = await reviewWorld(api);
    const w = { ...(await withAccount(rw)), connection: rw.connection };
    const { entry, review: queued } = await queuedEntry(w, { amountCents: 10_000 });
    const matchId = await matched(w, entry.id);
    const res = await review.reject(w, queued.id, 'Not a business expense');
    expect(res.status, res.text).toBe(200);
    expect(res.body.entry).toMatchObject({ entryStatus: 'REJECTED', isReconciled: false });
    await expectDissolved(w, matchId, entry.id, 'REJECTED');
  });

  it('inbound accounting webhook ENTRY_REJECTED dissolves the match of its entry', async () => {
    const w = await withAccount(await syncWorld(api, 'GENERIC', e));
    const entry = await createEntry(w, { amountCents: 10_000 });
    const matchId = await matched(w, entry.id);
    const res: ApiResponse = await w.api.request('POST', `/webhooks/accounting/${w.connection.id}`, {
      rawBody: JSON.stringify({ eventId: `evt-${randomUUID()}`, action: 'ENTRY_REJECTED', entryId: entry.id, reason: 'Duplicate' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status, res.text).toBe(200);
    await expectDissolved(w, matchId, entry.id, 'REJECTED');
  });
});
