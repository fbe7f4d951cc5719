import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { Party } from '../../server/db/models/index.js';
import { actor, buildWorkspace } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

let api: Api;
let token: string;
let ws: { id: number; projectIds: number[] };
let parties: number[];

beforeAll(async () => {
  api = await startServer();
  ws = await buildWorkspace();
  token = (await actor(api, { workspaceId: ws.id })).token;
  parties = (
    await Party.bulkCreate(
      [
        { workspaceId: ws.id, name: 'Vendor', partyType: 'ORGANIZATION' },
        { workspaceId: ws.id, name: 'Us', partyType: 'ORGANIZATION' },
      ],
      { returning: true },
    )
  ).map((p) => p.id);
});

async function expense(amountCents: number) {
  const res = await api.post(
    '/entries',
    {
      projectId: ws.projectIds[0],
      entryType: 'EXPENSE',
      baseCurrency: 'EUR',
      amountCents,
      entryDate: '2026-05-01',
      fromPartyId: parties[1],
      toPartyId: parties[0],
    },
    { token },
  );
  expect(res.status).toBe(200);
  return res.body.id as number;
}

async function derivedSum(originalId: number, linkType: string): Promise<number> {
  const [row] = await db().query<{ total: number }>(
    // joined on the workspace too, which Citus needs (TEST_CITUS=1)
    `SELECT COALESCE(SUM(d.amount_cents), 0)::bigint AS total
       FROM entry_links l JOIN entries d ON d.workspace_id = l.workspace_id AND d.id = l.derived_entry_id
      WHERE l.original_entry_id = :id AND l.link_type = :linkType AND d.entry_status <> 'VOIDED'`,
    { replacements: { id: originalId, linkType }, type: QueryTypes.SELECT },
  );
  return row.total;
}

/** Deterministic pseudo-random amounts, so a failing trial can be replayed. */
function amounts(seed: number, n: number, max: number): number[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return 1 + (x % max);
  });
}

describe('parallel refunds and reimbursements never exceed the original', () => {
  it('20 parallel refunds of 1/10 each: exactly 10 succeed, the original ends VOIDED', async () => {
    const id = await expense(10_000);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api.post(`/entries/${id}/refund`, { amountCents: 1_000 }, { token })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(10);
    expect(await derivedSum(id, 'REFUND')).toBe(10_000);
    const original = await api.get(`/entries/${id}`, { token });
    expect(original.body.entryStatus).toBe('VOIDED');
    expect(original.body.statusReason).toBe('Fully refunded');
    expect((await api.get(`/entries/${id}/events/verify`, { token })).body).toMatchObject({ valid: true, count: 12 });
  });

  it.each([1, 2, 3, 4, 5])('randomised trial %i: parallel refunds of random sizes sum to at most the original', async (seed) => {
    const original = 50_000;
    const id = await expense(original);
    const sizes = amounts(seed, 16, 12_000);
    const results = await Promise.all(sizes.map((amountCents) => api.post(`/entries/${id}/refund`, { amountCents }, { token })));
    const accepted = results.filter((r) => r.status === 200).map((r) => r.body.amountCents as number);
    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const total = accepted.reduce((s, a) => s + a, 0);
    expect(total).toBeLessThanOrEqual(original);
    expect(await derivedSum(id, 'REFUND')).toBe(total);
    // every refused refund was refused because it no longer fitted
    for (const [i, r] of results.entries()) if (r.status === 409) expect(sizes[i]).toBeGreaterThan(original - total);
    const status = (await api.get(`/entries/${id}`, { token })).body.entryStatus;
    expect(status).toBe(total === original ? 'VOIDED' : 'PENDING');
  });

  it('5 parallel full refunds: exactly one succeeds', async () => {
    const id = await expense(7_777);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api.post(`/entries/${id}/refund`, { amountCents: 7_777 }, { token })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await derivedSum(id, 'REFUND')).toBe(7_777);
  });

  it('parallel reimbursements never exceed the expense', async () => {
    const id = await expense(9_000);
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        api.post(`/entries/${id}/reimburse`, { amountCents: 1_000, fromPartyId: parties[0], toPartyId: parties[1] }, { token }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(9);
    expect(results.filter((r) => r.status === 409)).toHaveLength(3);
    expect(await derivedSum(id, 'REIMBURSEMENT')).toBe(9_000);
  });

  it('parallel notes on one entry keep the event hash chain intact', async () => {
    const id = await expense(100);
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) => api.post(`/entries/${id}/notes`, { content: `note ${i}` }, { token })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const verify = await api.get(`/entries/${id}/events/verify`, { token });
    expect(verify.body).toEqual({ valid: true, count: 16, firstBrokenEventId: null });
  });
});
