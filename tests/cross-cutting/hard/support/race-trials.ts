import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../../server/db/database.js';
import { createEntry, type EntryWorld, type SyncWorld, type IntegrationWorld } from '../../../support/factories/index.js';
import { events, getEntry } from '../../../support/entries.js';
import { expectErrorBody, type ApiResponse } from '../../../support/http.js';
import { providerCreates, push, syncRows } from '../../../accounting/sync/helpers.js';
import type { Rng } from './rng.js';

/**
 * Randomized race trials (issue 10), each one self-contained: real parallel HTTP requests against
 * the in-process server, then the invariant checked in the database and through the API. Shared by
 * the hard suite (many trials) and the fast suite (a few); the Rng makes a failing trial replayable.
 */

const query = <T extends object>(sql: string, replacements: Record<string, unknown>) =>
  db().query<T>(sql, { replacements, type: QueryTypes.SELECT });

const ok = (r: ApiResponse) => r.status === 200 || r.status === 201;

async function derivedSum(originalId: number, linkType: 'REFUND' | 'REIMBURSEMENT'): Promise<number> {
  const [row] = await query<{ total: number }>(
    `SELECT COALESCE(SUM(d.amount_cents), 0)::bigint AS total FROM entry_links l JOIN entries d ON d.id = l.derived_entry_id AND d.workspace_id = l.workspace_id
      WHERE l.original_entry_id = :id AND l.link_type = :linkType AND d.entry_status <> 'VOIDED'`,
    { id: originalId, linkType },
  );
  return Number(row!.total);
}

async function expectChainValid(w: EntryWorld, id: number): Promise<void> {
  const res = await w.api.get(`/entries/${id}/events/verify`, { token: w.token });
  expect(res.body, `chain of entry ${id}`).toMatchObject({ valid: true, firstBrokenEventId: null });
}

/** Amounts for k parallel derived entries: some the whole original, most a random part of it. */
function amountsFor(rng: Rng, original: number, k: number): number[] {
  return Array.from({ length: k }, () => (rng.next() < 0.2 ? original : rng.int(1, Math.max(1, Math.floor(original / 2)))));
}

/**
 * Parallel refunds of random amounts: accepted ones sum to at most the original, each refused one
 * no longer fitted, and the original is voided exactly once exactly when fully refunded.
 */
export async function refundTrial(w: EntryWorld, rng: Rng): Promise<void> {
  const original = rng.int(1_000, 200_000);
  const entry = await createEntry(w, { amountCents: original, entryType: rng.pick(['EXPENSE', 'INCOME']) });
  const sizes = amountsFor(rng, original, rng.int(2, 12));
  const results = await Promise.all(
    sizes.map((amountCents) => w.api.post(`/entries/${entry.id}/refund`, { amountCents }, { token: w.token })),
  );
  const accepted = results.filter(ok).map((r) => r.body.amountCents as number);
  for (const r of results) if (!ok(r)) expectErrorBody(r, 409, 'CONFLICT');
  const total = accepted.reduce((s, a) => s + a, 0);
  expect(total).toBeLessThanOrEqual(original);
  expect(await derivedSum(entry.id, 'REFUND')).toBe(total);
  results.forEach((r, i) => {
    if (!ok(r)) expect(sizes[i]).toBeGreaterThan(original - total);
  });
  const after = await getEntry(w, entry.id);
  const kinds = (await events(w, entry.id)).map((e: any) => e.kind as string);
  expect(kinds.filter((k) => k === 'REFUND_CREATED')).toHaveLength(accepted.length);
  const voids = kinds.filter((k) => k === 'VOIDED').length;
  if (total === original) {
    expect(after).toMatchObject({ entryStatus: 'VOIDED', statusReason: 'Fully refunded' });
    expect(voids).toBe(1);
  } else {
    expect(after.entryStatus).toBe('PENDING');
    expect(voids).toBe(0);
  }
  await expectChainValid(w, entry.id);
}

/** Parallel reimbursements of an expense: never above it, the original stays as it was. */
export async function reimburseTrial(w: EntryWorld, rng: Rng): Promise<void> {
  const original = rng.int(1_000, 200_000);
  const entry = await createEntry(w, { amountCents: original, entryType: 'EXPENSE' });
  const sizes = amountsFor(rng, original, rng.int(2, 12));
  const body = (amountCents: number) => ({ amountCents, fromPartyId: w.parties[1], toPartyId: w.parties[0] });
  const results = await Promise.all(sizes.map((a) => w.api.post(`/entries/${entry.id}/reimburse`, body(a), { token: w.token })));
  for (const r of results) if (!ok(r)) expectErrorBody(r, 409, 'CONFLICT');
  const total = results.filter(ok).reduce((s, r) => s + (r.body.amountCents as number), 0);
  expect(total).toBeLessThanOrEqual(original);
  expect(await derivedSum(entry.id, 'REIMBURSEMENT')).toBe(total);
  results.forEach((r, i) => {
    if (!ok(r)) expect(sizes[i]).toBeGreaterThan(original - total);
  });
  expect((await getEntry(w, entry.id)).entryStatus).toBe('PENDING');
  const kinds = (await events(w, entry.id)).map((e: any) => e.kind as string);
  expect(kinds.filter((k) => k === 'REIMBURSEMENT_CREATED')).toHaveLength(results.filter(ok).length);
  await expectChainValid(w, entry.id);
}

/** Parallel pushes of one entry to one connection: one external record, one sync row, one SYNC_PUSHED. */
export async function pushTrial(w: SyncWorld, rng: Rng): Promise<void> {
  const entry = await createEntry(w, { amountCents: rng.int(100, 100_000) });
  const creates = providerCreates(w);
  const results = await Promise.all(Array.from({ length: rng.int(2, 10) }, () => push(w, entry.id)));
  for (const r of results) expect(r.status, r.text).toBe(200);
  expect(providerCreates(w) - creates).toBe(1);
  expect(new Set(results.map((r) => `${r.body.id}/${r.body.externalId}/${r.body.status}`)).size).toBe(1);
  expect(results[0]!.body.status).toBe('SYNCED');
  expect(await syncRows(entry.id)).toHaveLength(1);
  const kinds = (await events(w, entry.id)).map((e: any) => e.kind as string);
  expect(kinds.filter((k) => k === 'SYNC_PUSHED')).toHaveLength(1);
  await expectChainValid(w, entry.id);
}

const respell = (rng: Rng, name: string) => [...name].map((c) => (rng.next() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');

/**
 * k identical ingest batches at once: each externalId created exactly once (and every response
 * names the same entry for it); parties and tags named in any spelling exist once.
 */
export async function ingestTrial(w: IntegrationWorld, rng: Rng): Promise<void> {
  const tag = `t${randomUUID().slice(0, 6)}`;
  const names = Array.from({ length: rng.int(1, 4) }, (_, i) => `Vendor ${tag} ${i}`);
  const tagNames = Array.from({ length: rng.int(1, 3) }, (_, i) => `${tag}-${i}`);
  const m = rng.int(5, 60);
  const entries = Array.from({ length: m }, (_, i) => ({
    externalId: `${tag}-${i}`,
    projectId: w.projectIds[0],
    entryType: rng.pick(['INCOME', 'EXPENSE']),
    amountCents: rng.int(1, 1_000_000),
    baseCurrency: 'USD',
    entryDate: '2026-02-10',
    fromParty: { name: respell(rng, rng.pick(names)) },
    tagNames: tagNames.filter(() => rng.next() < 0.6).map((t) => respell(rng, t)),
  }));
  const k = rng.int(2, 5);
  const responses = await Promise.all(
    Array.from({ length: k }, () => w.api.post('/api/v1/ingest', { entries }, { headers: { 'X-API-Key': w.apiKey } })),
  );
  const idOf = new Map<string, number>();
  for (const res of responses) {
    expect(res.status, res.text).toBe(200);
    expect(res.body.failed).toBe(0);
    expect(res.body.created + res.body.duplicates).toBe(m);
    for (const r of res.body.results as { externalId: string; entryId: number }[]) {
      if (!idOf.has(r.externalId)) idOf.set(r.externalId, r.entryId);
      expect(r.entryId).toBe(idOf.get(r.externalId));
    }
  }
  expect(responses.reduce((s, r) => s + (r.body.created as number), 0)).toBe(m);
  const [row] = await query<{ n: number; distinct_ext: number }>(
    `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct_ext FROM entries
      WHERE integration_id = :id AND external_id LIKE :prefix`,
    { id: w.integration.id, prefix: `${tag}-%` },
  );
  expect(row).toEqual({ n: m, distinct_ext: m });
  const parties = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM parties WHERE workspace_id = :ws AND lower(name) LIKE lower(:like) GROUP BY lower(name)`,
    { ws: w.workspaceId, like: `Vendor ${tag}%` },
  );
  expect(parties.every((p) => p.n === 1)).toBe(true);
  expect(parties.length).toBe(new Set(entries.map((e) => e.fromParty.name.toLowerCase())).size);
  const tags = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM tags WHERE workspace_id = :ws AND lower(name) LIKE lower(:like) GROUP BY lower(name)`,
    { ws: w.workspaceId, like: `${tag}-%` },
  );
  expect(tags.every((t) => t.n === 1)).toBe(true);
  expect(tags.length).toBe(new Set(entries.flatMap((e) => e.tagNames.map((t) => t.toLowerCase()))).size);
}

type KeyedTarget = { label: string; send: (key: string) => Promise<ApiResponse>; effects: () => Promise<number> };

/** A keyed write chosen at random: an entry create, a refund of one entry, or an ingest batch. */
async function keyedTarget(w: EntryWorld, ingest: IntegrationWorld, rng: Rng): Promise<KeyedTarget> {
  const marker = `idem-${randomUUID()}`;
  const kind = rng.pick(['entry', 'refund', 'ingest'] as const);
  if (kind === 'entry') {
    const body = {
      projectId: w.projectId,
      entryType: 'EXPENSE',
      amountCents: rng.int(1, 99_999),
      baseCurrency: 'USD',
      entryDate: '2026-01-20',
      reference: marker,
    };
    return {
      label: 'POST /entries',
      send: (key) => w.api.post('/entries', body, { token: w.token, headers: { 'Idempotency-Key': key } }),
      effects: async () =>
        (await query<{ n: number }>('SELECT count(*)::int AS n FROM entries WHERE reference = :marker', { marker }))[0]!.n,
    };
  }
  if (kind === 'refund') {
    const original = await createEntry(w, { amountCents: 50_000 });
    const amountCents = rng.int(1, 20_000);
    return {
      label: 'POST /entries/{id}/refund',
      send: (key) => w.api.post(`/entries/${original.id}/refund`, { amountCents }, { token: w.token, headers: { 'Idempotency-Key': key } }),
      effects: async () => (await derivedSum(original.id, 'REFUND')) / amountCents,
    };
  }
  const body = {
    entries: [
      {
        externalId: marker,
        projectId: ingest.projectIds[0],
        entryType: 'INCOME',
        amountCents: 500,
        baseCurrency: 'USD',
        entryDate: '2026-02-01',
      },
    ],
  };
  return {
    label: 'POST /api/v1/ingest',
    send: (key) => ingest.api.post('/api/v1/ingest', body, { headers: { 'X-API-Key': ingest.apiKey, 'Idempotency-Key': key } }),
    effects: async () =>
      (await query<{ n: number }>('SELECT count(*)::int AS n FROM entries WHERE external_id = :marker', { marker }))[0]!.n,
  };
}

/**
 * k identical requests with one Idempotency-Key at once (CONTRACT §1): exactly one runs; each
 * other one replays its response (same status and body, Idempotency-Replayed) or is a 409.
 */
export async function idempotencyTrial(w: EntryWorld, ingest: IntegrationWorld, rng: Rng): Promise<string> {
  const target = await keyedTarget(w, ingest, rng);
  const key = `k-${randomUUID()}`;
  const results = await Promise.all(Array.from({ length: rng.int(2, 8) }, () => target.send(key)));
  const fresh = results.filter((r) => r.status !== 409 && r.headers.get('idempotency-replayed') === null);
  expect(fresh, target.label).toHaveLength(1);
  expect(fresh[0]!.status, fresh[0]!.text).toBe(200);
  for (const r of results) {
    if (r === fresh[0]) continue;
    if (r.status === 409) expectErrorBody(r, 409, 'CONFLICT');
    else {
      expect(r.headers.get('idempotency-replayed')).toBe('true');
      expect(r.status).toBe(fresh[0]!.status);
      expect(r.body).toEqual(fresh[0]!.body);
    }
  }
  expect(await target.effects()).toBe(1);
  // once it is done, a sequential repeat replays it and still changes nothing
  const again = await target.send(key);
  expect(again.headers.get('idempotency-replayed')).toBe('true');
  expect(again.body).toEqual(fresh[0]!.body);
  expect(await target.effects()).toBe(1);
  return target.label;
}
