import { beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Api } from '../support/http.js';
import { createEntry, entryWithWorld, png, requested, uploaded } from '../support/factories/index.js';
import { events, getEntry } from '../support/entries.js';
import { approve, fulfil, isComplete, reject } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

describe('isComplete (CONTRACT §6)', () => {
  it('turns true with an APPROVED BASIS, false again while a document is REQUESTED, and follows every change', async () => {
    const { w, entry } = await entryWithWorld(api);
    expect(entry.isComplete).toBe(false);
    const basis = await uploaded(w, entry.id, { documentType: 'BASIS' });
    expect(await isComplete(w, entry.id)).toBe(false); // uploaded, not yet approved

    expect((await approve(w, entry.id, basis.id)).status).toBe(200);
    const detail = await getEntry(w, entry.id);
    expect(detail.isComplete).toBe(true);
    expect(detail.documents.map((d: any) => [d.id, d.status])).toEqual([[basis.id, 'APPROVED']]);

    const missing = await requested(w, entry.id, { documentName: 'Delivery note', documentType: 'SUPPORTING' });
    expect(await isComplete(w, entry.id)).toBe(false);

    expect((await fulfil(w, entry.id, missing.id, { bytes: png(4) })).status).toBe(200);
    expect(await isComplete(w, entry.id)).toBe(true); // nothing REQUESTED any more; the supporting doc needs no approval

    expect((await reject(w, entry.id, basis.id, 'wrong invoice')).status).toBe(200);
    expect(await isComplete(w, entry.id)).toBe(false);

    expect((await approve(w, entry.id, basis.id)).status).toBe(200);
    expect(await isComplete(w, entry.id)).toBe(true);
  });

  it('each event says what completeness became', async () => {
    const { w, entry } = await entryWithWorld(api);
    const basis = await uploaded(w, entry.id);
    await approve(w, entry.id, basis.id);
    await requested(w, entry.id);
    const docEvents = (await events(w, entry.id)).filter((e) => e.kind.startsWith('DOCUMENT_'));
    expect(docEvents.map((e) => [e.kind, e.data.isComplete])).toEqual([
      ['DOCUMENT_UPLOADED', false],
      ['DOCUMENT_APPROVED', true],
      ['DOCUMENT_REQUESTED', false],
    ]);
  });

  it('only a BASIS counts for an ordinary entry', async () => {
    const { w, entry } = await entryWithWorld(api);
    for (const documentType of ['PAYMENT_PROOF', 'SUPPORTING', 'CREDIT_NOTE']) {
      const doc = await uploaded(w, entry.id, { documentType, bytes: png(documentType.length) });
      expect((await approve(w, entry.id, doc.id)).status).toBe(200);
    }
    expect(await isComplete(w, entry.id)).toBe(false);
  });

  it('a refund entry needs an approved CREDIT_NOTE instead', async () => {
    const { w, entry } = await entryWithWorld(api);
    const res = await api.post(`/entries/${entry.id}/refund`, { amountCents: 2_500 }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    const refund = res.body;
    expect(refund.isComplete).toBe(false);

    const basis = await uploaded(w, refund.id, { documentType: 'BASIS' });
    await approve(w, refund.id, basis.id);
    expect(await isComplete(w, refund.id)).toBe(false);

    const credit = await uploaded(w, refund.id, { documentType: 'CREDIT_NOTE', bytes: png(8) });
    await approve(w, refund.id, credit.id);
    expect(await isComplete(w, refund.id)).toBe(true);

    // the original is not a refund: its own CREDIT_NOTE does not make it complete, a BASIS does
    const originalCredit = await uploaded(w, entry.id, { documentType: 'CREDIT_NOTE' });
    await approve(w, entry.id, originalCredit.id);
    expect(await isComplete(w, entry.id)).toBe(false);
    const originalBasis = await uploaded(w, entry.id, { documentType: 'BASIS', bytes: png(9) });
    await approve(w, entry.id, originalBasis.id);
    expect(await isComplete(w, entry.id)).toBe(true);
  });

  it('a reimbursement or correction is not a refund: BASIS as usual', async () => {
    const { w, entry } = await entryWithWorld(api);
    const res = await api.post(
      `/entries/${entry.id}/reimburse`,
      { amountCents: 1_000, fromPartyId: w.parties[2], toPartyId: w.parties[0] },
      { token: w.token },
    );
    expect(res.status, res.text).toBe(200);
    const doc = await uploaded(w, res.body.id, { documentType: 'BASIS' });
    await approve(w, res.body.id, doc.id);
    expect(await isComplete(w, res.body.id)).toBe(true);
  });

  it('moves updated_at of the entry only when the flag flips', async () => {
    const { w } = await entryWithWorld(api);
    const entry = await createEntry(w);
    const doc = await uploaded(w, entry.id);
    const afterUpload = (await getEntry(w, entry.id)).updatedAt;
    expect(afterUpload).toBe(entry.updatedAt);
    await approve(w, entry.id, doc.id);
    const afterApprove = await getEntry(w, entry.id);
    expect(afterApprove.isComplete).toBe(true);
    expect(afterApprove.updatedAt > entry.updatedAt).toBe(true);
  });
});
