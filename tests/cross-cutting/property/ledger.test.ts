import { beforeAll, describe, expect, it } from 'vitest';
import { actor, createEntry, entryWorld, type EntryWorld } from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { expectOk, getEntry, related } from '../../support/entries.js';
import { byBudget } from '../../support/budget.js';
import { propertyOptions, runLedgerProperty } from './ledger-commands.js';
import * as L from './ledger-model.js';

/**
 * Issue 10 / issue 17: the ledger against a model written from CONTRACT §4/§5/§7 alone
 * (ledger-model.ts): corrections, caps followed through correction chains, statuses, tags,
 * closed periods. Brief budget under npm test; npm run test:hard runs this file with the long budget
 * (TEST_BUDGET=hard: more runs, longer command sequences). A failure prints `LEDGER_SEED=… LEDGER_PATH=…`: set them
 * to replay it (LEDGER_RUNS / LEDGER_MAX_COMMANDS override the sizes, LEDGER_SHRINK=0 skips shrinking).
 */
const OPTIONS = propertyOptions('brief');

let api: Api;
let user: { id: string; token: string };
beforeAll(async () => {
  api = await startServer();
  user = await actor(api);
});

describe('ledger property (model-based, real HTTP)', () => {
  it(
    `service and model agree after every command (${OPTIONS.numRuns} runs × up to ${OPTIONS.maxCommands} commands, seed ${OPTIONS.seed})`,
    async () => {
      const stats = await runLedgerProperty(api, user, OPTIONS);
      console.info(`[ledger property] ${JSON.stringify(stats)}`);
      expect(stats.runs).toBeGreaterThanOrEqual(OPTIONS.numRuns);
      // the generator reaches both sides of the rules
      expect(stats.accepted).toBeGreaterThan(0);
      expect(stats.refused).toBeGreaterThan(0);
    },
    byBudget(1_200_000, 3_600_000),
  );
});

/** The model alone, on the contract's own sentences (so that a model that drifts is caught without the service). */
describe('the ledger model follows the caps through corrections (CONTRACT §5)', () => {
  const base = { description: 'x', from: 0, to: 1, tags: [] };
  function sale(amount: number) {
    const m = L.emptyModel([]);
    const i = L.applyCreate(m, { ...base, type: 'INCOME', amount, date: '2025-05-10' });
    return { m, i };
  }
  const refund = (m: L.Model, i: number, amount: number) => L.applyRefund(m, i, { amount, date: '2025-05-11', description: 'r' }, []);

  it('the replacement of a refund takes its place in the total (issue 17: a corrected refund above the sale is a 409)', () => {
    const { m, i } = sale(10_000);
    const r = refund(m, i, 6_000);
    expect(L.decideCorrect(m, r, { reason: 'x', amount: 20_000 })).toMatchObject({ status: 409 });
    expect(L.decideCorrect(m, r, { reason: 'x', amount: 10_000 })).toBeNull();
    const r2 = L.applyCorrect(m, r, { reason: 'x', amount: 7_000 }, []);
    expect(L.capUse(m, i, 'REFUND')).toBe(7_000);
    expect(L.decideEdit(m, r2, { amount: 10_001 })).toMatchObject({ status: 409 });
    expect(L.decideRefund(m, i, { amount: 3_001, date: '2025-05-11', description: 'r' })).toMatchObject({ status: 409 });
    refund(m, i, 3_000);
    expect(m.entries[i]).toMatchObject({ status: 'VOIDED', statusReason: 'Fully refunded' });
  });

  it('the replacement of an original keeps its live refunds: 409 below them, they count against it', () => {
    const { m, i } = sale(10_000);
    refund(m, i, 6_000);
    expect(L.decideCorrect(m, i, { reason: 'x', amount: 5_999 })).toMatchObject({ status: 409 });
    const x = L.applyCorrect(m, i, { reason: 'x', amount: 8_000 }, []);
    expect(L.headOf(m, i)).toBe(x);
    expect(L.capRoom(m, x, 'REFUND')).toBe(2_000);
    expect(L.decideEdit(m, x, { amount: 5_999 })).toMatchObject({ status: 409 });
  });

  it('a REJECTED refund leaves the total; its comeback is a 409 when it would not fit', () => {
    const { m, i } = sale(1_000);
    const r = refund(m, i, 600);
    L.applyStatus(m, r, 'REJECTED', 'bank refused');
    refund(m, i, 600);
    expect(L.decideStatus(m, r, 'PENDING', undefined)).toMatchObject({ status: 409 });
    expect(L.capsBroken(m)).toBeNull();
  });
});

/** The disagreement the property found, pinned as examples (its shrunk counterexample, and the reimbursement twin). */
describe('a refund or reimbursement entry cannot be edited past its original (CONTRACT §5)', () => {
  let w: EntryWorld;
  beforeAll(async () => {
    w = await entryWorld(api);
  });
  const patch = (id: number, body: unknown) => w.api.patch(`/entries/${id}`, body, { token: w.token });

  it('refund: 409 above what the original has left, 200 up to it; the original keeps its status', async () => {
    const original = await createEntry(w, { entryType: 'INCOME', amountCents: 1_000, entryDate: '2026-01-10' });
    const first = await w.api.post(`/entries/${original.id}/refund`, { amountCents: 300, entryDate: '2026-01-11' }, { token: w.token });
    expectOk(first);
    const second = await w.api.post(`/entries/${original.id}/refund`, { amountCents: 200, entryDate: '2026-01-11' }, { token: w.token });
    expectOk(second);
    expectErrorBody(await patch(first.body.id, { amountCents: 801 }), 409, 'CONFLICT');
    expect((await getEntry(w, first.body.id)).amountCents).toBe(300);
    const ok = await patch(first.body.id, { amountCents: 800 });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.amountCents).toBe(800);
    // lowering is always fine, and a voided refund frees its share
    expect((await patch(second.body.id, { amountCents: 100 })).status).toBe(200);
    expectOk(await w.api.post(`/entries/${second.body.id}/void`, { reason: 'reversed' }, { token: w.token }));
    expect((await patch(first.body.id, { amountCents: 1_000 })).status).toBe(200);
    expect(await getEntry(w, original.id)).toMatchObject({ entryStatus: 'PENDING', amountCents: 1_000 });
    expectErrorBody(
      await w.api.post(`/entries/${original.id}/refund`, { amountCents: 1, entryDate: '2026-01-11' }, { token: w.token }),
      409,
      'CONFLICT',
    );
  });

  it('reimbursement: 409 above what the original has left; refunds of the same original do not count against it', async () => {
    const original = await createEntry(w, { entryType: 'EXPENSE', amountCents: 1_000, entryDate: '2026-01-10' });
    expectOk(await w.api.post(`/entries/${original.id}/refund`, { amountCents: 900, entryDate: '2026-01-11' }, { token: w.token }));
    const body = { amountCents: 400, fromPartyId: w.parties[2], toPartyId: w.parties[3], entryDate: '2026-01-12' };
    const reimbursement = await w.api.post(`/entries/${original.id}/reimburse`, body, { token: w.token });
    expectOk(reimbursement);
    expectErrorBody(await patch(reimbursement.body.id, { amountCents: 1_001 }), 409, 'CONFLICT');
    expect((await patch(reimbursement.body.id, { amountCents: 1_000 })).status).toBe(200);
    const links = await related(w, original.id);
    expect(links.map((l) => [l.linkType, l.entry.amountCents]).sort()).toEqual([
      ['REFUND', 900],
      ['REIMBURSEMENT', 1_000],
    ]);
  });

  it('an edit of a refund racing a new refund of its original: never both (10 trials, real parallel requests)', async () => {
    for (let trial = 0; trial < 10; trial++) {
      const original = await createEntry(w, { amountCents: 1_000, entryDate: '2026-01-10' });
      const first = await w.api.post(`/entries/${original.id}/refund`, { amountCents: 100, entryDate: '2026-01-11' }, { token: w.token });
      expectOk(first);
      // each fits alone (600 + 0 other, or 100 + 500), together they would be 1_100
      const [edit, refund] = await Promise.all([
        patch(first.body.id, { amountCents: 600 }),
        w.api.post(`/entries/${original.id}/refund`, { amountCents: 500, entryDate: '2026-01-11' }, { token: w.token }),
      ]);
      expect([edit.status, refund.status].sort(), `trial ${trial}: ${edit.text} / ${refund.text}`).toEqual([200, 409]);
      const total = (await related(w, original.id)).reduce((sum, l) => sum + (l.entry.amountCents as number), 0);
      expect(total).toBe(600);
    }
  });

  it('a correction entry is not bound by its original', async () => {
    const original = await createEntry(w, { amountCents: 1_000 });
    const corrected = await w.api.post(`/entries/${original.id}/correct`, { reason: 'typo', amountCents: 500 }, { token: w.token });
    expectOk(corrected);
    expect((await patch(corrected.body.id, { amountCents: 5_000 })).status).toBe(200);
  });
});

/** Found by the property (LEDGER_SEED=7): a correction of an entry carrying an archived tag answered 400. */
describe('a correction of an entry that carries an archived tag (CONTRACT §4, §5)', () => {
  it('succeeds, and the replacement carries the tag as the original did (it is not added anew)', async () => {
    const w = await entryWorld(api);
    const tag = await w.api.post('/tags', { workspaceId: w.workspaceId, name: 'Old' }, { token: w.token });
    expectOk(tag);
    const original = await createEntry(w, { amountCents: 1_000, tagIds: [tag.body.id] });
    expectOk(await w.api.del(`/tags/${tag.body.id}`, { token: w.token }));
    const replacement = await w.api.post(`/entries/${original.id}/correct`, { reason: 'typo', amountCents: 900 }, { token: w.token });
    expectOk(replacement);
    expect((await getEntry(w, replacement.body.id)).tags.map((t: { id: number }) => t.id)).toEqual([tag.body.id]);
    // an entry that does not carry it still cannot take it
    const other = await createEntry(w, {});
    expectErrorBody(await w.api.put(`/entries/${other.id}/tags`, { tagIds: [tag.body.id] }, { token: w.token }), 400, 'BAD_REQUEST');
  });
});
