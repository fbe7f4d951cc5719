import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../server/db/database.js';
import { postgresErrorOf } from '../../server/lib/errors.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { closePeriod, createEntry, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { expectOk, getEntry } from '../support/entries.js';

/**
 * CONTRACT §5 invariant: for every entry, the live (not VOIDED, CANCELLED or REJECTED) refunds
 * linked to it, followed through corrections, sum to at most its amount, and so do its
 * reimbursements — on every path that changes an amount, and checked by PostgreSQL at commit.
 * The expected totals below are written from that sentence, not from the implementation.
 */
let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});

const post = (path: string, body: unknown) => api.post(path, body, { token: w.token });
const patch = (path: string, body: unknown) => api.patch(path, body, { token: w.token });
const DATE = '2026-03-10';

async function income(amountCents: number) {
  return createEntry(w, { entryType: 'INCOME', amountCents, entryDate: DATE });
}
async function expense(amountCents: number) {
  return createEntry(w, { entryType: 'EXPENSE', amountCents, entryDate: DATE });
}
const refund = (id: number, amountCents: number) => post(`/entries/${id}/refund`, { amountCents, entryDate: DATE });
const reimburse = (id: number, amountCents: number) =>
  post(`/entries/${id}/reimburse`, { amountCents, fromPartyId: w.parties[2], toPartyId: w.parties[3], entryDate: DATE });
const correct = (id: number, amountCents: number) => post(`/entries/${id}/correct`, { reason: 'fix', amountCents });

/** Sum of the live entries derived from `originalIds` by `linkType`, each followed through its corrections (the model of §5). */
async function liveDerived(originalIds: number[], linkType: 'REFUND' | 'REIMBURSEMENT'): Promise<number> {
  const [row] = await db().query<{ total: string }>(
    `WITH RECURSIVE d(id) AS (
       SELECT derived_entry_id FROM entry_links
        WHERE workspace_id = :ws AND original_entry_id = ANY(CAST(:ids AS bigint[])) AND link_type = :linkType
       UNION
       SELECT l.derived_entry_id FROM entry_links l JOIN d ON l.original_entry_id = d.id
        WHERE l.workspace_id = :ws AND l.link_type = 'CORRECTION'
     )
     SELECT COALESCE(SUM(e.amount_cents), 0) AS total FROM d JOIN entries e ON e.workspace_id = :ws AND e.id = d.id
      WHERE e.entry_status NOT IN ('VOIDED', 'CANCELLED', 'REJECTED')`,
    // naming the workspace lets Citus run it (TEST_CITUS=1): a recursive CTE must filter on the distribution column
    { replacements: { ws: w.workspaceId, ids: `{${originalIds.join(',')}}`, linkType }, type: QueryTypes.SELECT },
  );
  return Number(row.total);
}

describe('caps of refunds and reimbursements, followed through corrections', () => {
  it('the side door of issue 17: a corrected refund cannot take the refunds of a 10,000 sale above 10,000', async () => {
    const sale = await income(10_000);
    const first = await refund(sale.id, 6_000);
    expectOk(first);
    expectErrorBody(await patch(`/entries/${first.body.id}`, { amountCents: 20_000 }), 409, 'CONFLICT');
    expectErrorBody(await correct(first.body.id, 20_000), 409, 'CONFLICT');
    expectErrorBody(await refund(sale.id, 10_000), 409, 'CONFLICT');
    expect(await liveDerived([sale.id], 'REFUND')).toBe(6_000);
    expect((await getEntry(w, sale.id)).entryStatus).toBe('PENDING');
    // a correction of the refund inside the cap replaces it in the total
    const replaced = await correct(first.body.id, 7_000);
    expectOk(replaced);
    expect(await liveDerived([sale.id], 'REFUND')).toBe(7_000);
    expectErrorBody(await refund(sale.id, 3_001), 409, 'CONFLICT');
    expectOk(await refund(sale.id, 3_000));
    expect(await liveDerived([sale.id], 'REFUND')).toBe(10_000);
    const after = await getEntry(w, sale.id);
    expect(after).toMatchObject({ entryStatus: 'VOIDED', statusReason: 'Fully refunded' });
  });

  it('the same for reimbursements: neither an edit nor a correction of a reimbursement passes the expense', async () => {
    const cost = await expense(5_000);
    const r = await reimburse(cost.id, 4_000);
    expectOk(r);
    expectErrorBody(await patch(`/entries/${r.body.id}`, { amountCents: 5_001 }), 409, 'CONFLICT');
    expectErrorBody(await correct(r.body.id, 5_001), 409, 'CONFLICT');
    const chain = await correct(r.body.id, 4_500);
    expectOk(chain);
    expectErrorBody(await correct(chain.body.id, 9_000), 409, 'CONFLICT');
    expectOk(await correct(chain.body.id, 5_000));
    expectErrorBody(await reimburse(cost.id, 1), 409, 'CONFLICT');
    expect(await liveDerived([cost.id], 'REIMBURSEMENT')).toBe(5_000);
  });

  it('a corrected original keeps its live refunds: below them 409, above them they count against the replacement', async () => {
    const sale = await income(10_000);
    expectOk(await refund(sale.id, 6_000));
    expectErrorBody(await correct(sale.id, 5_999), 409, 'CONFLICT');
    expect((await getEntry(w, sale.id)).entryStatus).toBe('PENDING');
    const replacement = await correct(sale.id, 8_000);
    expectOk(replacement);
    expectErrorBody(await refund(replacement.body.id, 2_001), 409, 'CONFLICT');
    expectOk(await refund(replacement.body.id, 2_000));
    expect(await liveDerived([sale.id, replacement.body.id], 'REFUND')).toBe(8_000);
    // a chain of corrections of the original: each replacement still carries the refunds
    expectErrorBody(await correct(replacement.body.id, 7_999), 409, 'CONFLICT');
  });

  it('an edit of an original below its refunds plus reimbursements is a 409 after a correction of the refund too', async () => {
    const cost = await expense(10_000);
    const r = await refund(cost.id, 3_000);
    expectOk(await correct(r.body.id, 4_000));
    expectOk(await reimburse(cost.id, 2_000));
    expectErrorBody(await patch(`/entries/${cost.id}`, { amountCents: 5_999 }), 409, 'CONFLICT');
    expectOk(await patch(`/entries/${cost.id}`, { amountCents: 6_000 }));
  });

  it('a REJECTED refund that comes back to PENDING may not take the total above the original', async () => {
    const sale = await income(1_000);
    const r1 = await refund(sale.id, 600);
    expectOk(await patch(`/entries/${r1.body.id}/status`, { status: 'REJECTED', reason: 'bank refused' }));
    expectOk(await refund(sale.id, 600));
    expectErrorBody(await patch(`/entries/${r1.body.id}/status`, { status: 'PENDING' }), 409, 'CONFLICT');
    expect(await liveDerived([sale.id], 'REFUND')).toBe(600);
  });

  it('parallel corrections of a refund and new refunds of its original never exceed it together', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const sale = await income(10_000);
      const r = await refund(sale.id, 5_000);
      expectOk(r);
      const results = await Promise.all([
        correct(r.body.id, 9_000),
        refund(sale.id, 4_000),
        refund(sale.id, 3_000),
        correct(r.body.id, 8_000),
        patch(`/entries/${sale.id}`, { amountCents: 9_500 }),
      ]);
      for (const res of results) expect([200, 409]).toContain(res.status);
      const amount = (await getEntry(w, sale.id)).amountCents as number;
      expect(await liveDerived([sale.id], 'REFUND')).toBeLessThanOrEqual(amount);
    }
  });
});

describe('PostgreSQL refuses a commit that breaks a cap, whoever writes the rows', () => {
  async function rawRefundRow(tx: Transaction, original: { id: number; workspaceId: number; projectId: number }, amount: number) {
    const [row] = await db().query<{ id: number }>(
      `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, entry_status, base_currency, amount_cents,
                            entry_date, created_at, updated_at)
       SELECT :ws, :project, entry_source_id, 'EXPENSE', 'PENDING', base_currency, :amount, entry_date, now(), now()
         FROM entries WHERE id = :original RETURNING id`,
      {
        replacements: { ws: original.workspaceId, project: original.projectId, original: original.id, amount },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return Number(row.id);
  }
  const link = (tx: Transaction, workspaceId: number, type: string, originalId: number, derivedId: number) =>
    db().query(`INSERT INTO entry_links (workspace_id, link_type, original_entry_id, derived_entry_id) VALUES (:ws, :type, :o, :d)`, {
      replacements: { ws: workspaceId, type, o: originalId, d: derivedId },
      transaction: tx,
    });
  /** Runs raw SQL in one transaction; the PostgreSQL error that stopped it (at commit for the deferred trigger), if any. */
  const failureOf = async (work: (tx: Transaction) => Promise<unknown>) => {
    try {
      await db().transaction(async (tx) => {
        await work(tx);
      });
      return undefined;
    } catch (err) {
      return postgresErrorOf(err);
    }
  };

  it('a direct SQL insert of a refund link above the original is refused at commit (check_violation entry_caps)', async () => {
    const sale = await income(1_000);
    expectOk(await refund(sale.id, 400));
    const before = await liveDerived([sale.id], 'REFUND');
    const err = await failureOf(async (tx) => {
      const derived = await rawRefundRow(tx, sale, 700);
      await link(tx, sale.workspaceId, 'REFUND', sale.id, derived);
    });
    expect(err).toMatchObject({ code: '23514', constraint: 'entry_caps' });
    expect(await liveDerived([sale.id], 'REFUND')).toBe(before);
    // inside the cap, the same kind of write commits
    expect(
      await failureOf(async (tx) => {
        const derived = await rawRefundRow(tx, sale, 600);
        await link(tx, sale.workspaceId, 'REFUND', sale.id, derived);
      }),
    ).toBeUndefined();
    expect(await liveDerived([sale.id], 'REFUND')).toBe(1_000);
  });

  it('a direct SQL update of a refund amount, or of the original below its refunds, is refused at commit', async () => {
    const sale = await income(1_000);
    const r = await refund(sale.id, 400);
    const raise = await failureOf((tx) =>
      db().query('UPDATE entries SET amount_cents = 1001 WHERE id = :id', { replacements: { id: r.body.id }, transaction: tx }),
    );
    expect(raise).toMatchObject({ code: '23514', constraint: 'entry_caps' });
    const lower = await failureOf((tx) =>
      db().query('UPDATE entries SET amount_cents = 399 WHERE id = :id', { replacements: { id: sale.id }, transaction: tx }),
    );
    expect(lower).toMatchObject({ code: '23514', constraint: 'entry_caps' });
    expect((await getEntry(w, sale.id)).amountCents).toBe(1_000);
    expect(await liveDerived([sale.id], 'REFUND')).toBe(400);
  });

  it('a direct SQL correction link that moves a refund above its original is refused at commit', async () => {
    const sale = await income(1_000);
    const r = await refund(sale.id, 900);
    const err = await failureOf(async (tx) => {
      await db().query(`UPDATE entries SET entry_status = 'VOIDED' WHERE id = :id`, { replacements: { id: r.body.id }, transaction: tx });
      const replacement = await rawRefundRow(tx, sale, 1_200);
      await link(tx, sale.workspaceId, 'CORRECTION', r.body.id, replacement);
    });
    expect(err).toMatchObject({ code: '23514', constraint: 'entry_caps' });
    expect(await liveDerived([sale.id], 'REFUND')).toBe(900);
  });
});

describe('PUT /entries/{id}/tags on an entry dated in a closed period (CONTRACT §5)', () => {
  it('409, and the tags stay as they were', async () => {
    const entry = await createEntry(w, { entryDate: '2025-06-15' });
    const tag = await api.post('/tags', { workspaceId: w.workspaceId, name: 'closed-period-tag' }, { token: w.token });
    await closePeriod(api, w.token, w.workspaceId, '2025-06-01', '2025-06-30');
    expectErrorBody(await api.put(`/entries/${entry.id}/tags`, { tagIds: [tag.body.id] }, { token: w.token }), 409, 'CONFLICT');
    expect((await api.get(`/entries/${entry.id}`, { token: w.token })).body.tags).toEqual([]);
  });
});
