import { beforeAll, describe, expect, it } from 'vitest';
import { otherProcess } from '../support/other-process.js';
import {
  addProjectMember,
  buildUser,
  login,
  entryWorld,
  makeEntry,
  makeTag,
  pdf,
  png,
  requested,
  uploaded,
} from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { ENTRY_KEYS } from '../support/entries.js';
import { approve, getDoc, reject } from '../documents/helpers.js';

/**
 * GET /entries/{id} is one prepared statement (server/domains/entries/entry-detail.ts): every part
 * of a richly populated detail is checked here field by field against what the other endpoints
 * say about the same objects (the entry in a list page, each party as created, each document on
 * its own route), so the single-query detail cannot drift from them.
 */
let api: Api;
const other = otherProcess();
beforeAll(async () => {
  api = await startServer();
});

async function party(token: string, body: Record<string, unknown>) {
  const res = await api.post('/parties', body, { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('GET /entries/{id}: the whole detail in one statement', () => {
  it('returns every part of a richly populated entry exactly as the other endpoints show it', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const from = await party(w.token, {
      workspaceId: w.workspaceId,
      name: 'Ünïcode GmbH "quoted"',
      partyType: 'ORGANIZATION',
      country: 'DE',
      email: 'billing@example.com',
      taxId: 'DE123456789',
    });
    const to = await party(w.token, { workspaceId: w.workspaceId, name: 'Jane Doe', partyType: 'PERSON' });
    const red = await makeTag(api, w.token, w.workspaceId, 'red', '#aa0000');
    const blue = await makeTag(api, w.token, w.workspaceId, 'Blue');
    const created = await makeEntry(api, w.token, {
      projectId: w.projectIds[1],
      entryType: 'INCOME',
      amountCents: 98_765,
      baseCurrency: 'EUR',
      entryDate: '2026-02-28',
      fromPartyId: from.id,
      toPartyId: to.id,
      description: 'Line\nbreaks, "quotes" and émojis 🙂',
      reference: 'REF-42',
      excludeFromSync: true,
      tagIds: [red, blue],
      items: [
        { description: 'Third by name, first by position', quantity: 0.25, unitAmountCents: 400, amountCents: 100 },
        { description: 'Second', quantity: 3, unitAmountCents: 32_888, amountCents: 98_665 },
      ],
      transactions: [
        { transactionDate: '2026-03-02', amountCents: 50_000, method: 'WIRE', externalRef: 'w-1' },
        { transactionDate: '2026-03-01', amountCents: 48_765 },
      ],
    });
    const first = await uploaded(w, created.id, { bytes: png(3), name: 'receipt.png' });
    const second = await uploaded(w, created.id, { bytes: pdf('invoice'), name: 'invoice.pdf', documentType: 'PAYMENT_PROOF' });
    const third = await requested(w, created.id, { documentName: 'Contract', comment: 'please sign' });
    expect((await approve(w, created.id, first.id)).status).toBe(200);
    expect((await reject(w, created.id, second.id, 'blurry')).status).toBe(200);

    const res = await api.get(`/entries/${created.id}`, { token: w.token });
    expect(res.status, res.text).toBe(200);
    const { items, transactions, documents, tags, parties, ...entry } = res.body;

    // the entry's own fields: as a list page shows the same entry
    const page = await api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, limit: 100 } });
    expect(page.status, page.text).toBe(200);
    const listed = (page.body.items as { id: number }[]).find((e) => e.id === created.id);
    expect(Object.keys(entry).sort()).toEqual([...ENTRY_KEYS].sort());
    expect(entry).toEqual(listed);
    expect(entry).toMatchObject({
      projectId: w.projectIds[1],
      entryType: 'INCOME',
      amountCents: 98_765,
      baseCurrency: 'EUR',
      entryDate: '2026-02-28',
      fromPartyId: from.id,
      toPartyId: to.id,
      description: 'Line\nbreaks, "quotes" and émojis 🙂',
      reference: 'REF-42',
      excludeFromSync: true,
    });

    // items in their given order, quantities as numbers
    expect(items).toEqual([
      {
        id: expect.any(Number),
        description: 'Third by name, first by position',
        quantity: 0.25,
        unitAmountCents: 400,
        amountCents: 100,
        categoryId: null,
      },
      { id: expect.any(Number), description: 'Second', quantity: 3, unitAmountCents: 32_888, amountCents: 98_665, categoryId: null },
    ]);
    expect(items[0].id).toBeLessThan(items[1].id);

    // payments by date
    expect(transactions).toEqual([
      { id: expect.any(Number), transactionDate: '2026-03-01', amountCents: 48_765, method: null, externalRef: null },
      { id: expect.any(Number), transactionDate: '2026-03-02', amountCents: 50_000, method: 'WIRE', externalRef: 'w-1' },
    ]);

    // tags by name
    expect(tags).toEqual([
      { id: blue, name: 'Blue', color: null },
      { id: red, name: 'red', color: '#aa0000' },
    ]);

    // parties exactly as created (timestamps included)
    expect(parties).toEqual({ from, to });
    expect(parties.from).toMatchObject({ country: 'DE', email: 'billing@example.com', taxId: 'DE123456789' });
    expect(parties.to).toMatchObject({ country: null, email: null, taxId: null, partyType: 'PERSON' });

    // documents in creation order, each as its own route shows it
    expect(documents.map((d: { id: string }) => d.id)).toEqual([first.id, second.id, third.id]);
    for (const d of documents) expect(d).toEqual(await getDoc(w, created.id, d.id));
    expect(documents[0]).toMatchObject({ status: 'APPROVED', approvedBy: w.userId, mimeType: 'image/png', documentName: 'receipt.png' });
    expect(documents[1]).toMatchObject({ status: 'REJECTED', rejectionReason: 'blurry', documentType: 'PAYMENT_PROOF' });
    expect(documents[2]).toMatchObject({ status: 'REQUESTED', comment: 'please sign', fileSize: null, sha256: null, mimeType: null });
  });

  it('returns the same detail on repeated reads (the prepared statement is reused on every pooled connection)', async () => {
    const w = await entryWorld(api);
    const e = await makeEntry(api, w.token, { projectId: w.projectId, fromPartyId: w.parties[0] });
    const reads = await Promise.all(Array.from({ length: 25 }, () => api.get(`/entries/${e.id}`, { token: w.token })));
    for (const r of reads) expect(r.status).toBe(200);
    expect(new Set(reads.map((r) => r.text)).size).toBe(1);
    expect(reads[0].body).toMatchObject({ id: e.id, items: [], transactions: [], documents: [], tags: [], parties: { to: null } });
  });

  it('answers 404 for an entry outside the caller’s reach and for none at all; a project member sees their project only', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const inFirst = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    const inSecond = await makeEntry(api, w.token, { projectId: w.projectIds[1] });

    const outsiderWorld = await entryWorld(api);
    expectErrorBody(await api.get(`/entries/${inFirst.id}`, { token: outsiderWorld.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get('/entries/999999999', { token: w.token }), 404, 'NOT_FOUND');

    const member = await buildUser({ permissions: [] });
    await addProjectMember(w.projectIds[0], member.id);
    const token = await login(api, member);
    const seen = await api.get(`/entries/${inFirst.id}`, { token });
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.id).toBe(inFirst.id);
    expectErrorBody(await api.get(`/entries/${inSecond.id}`, { token }), 404, 'NOT_FOUND');
  });

  it('keeps working when a migration adds a column to entries while the statement is prepared on pooled connections', async () => {
    const w = await entryWorld(api);
    const e = await makeEntry(api, w.token, { projectId: w.projectId });
    const read = async () => {
      const reads = await Promise.all(Array.from({ length: 20 }, () => api.get(`/entries/${e.id}`, { token: w.token })));
      return reads.map((r) => r.status);
    };
    const before = await read();
    await other.sql('ALTER TABLE entries ADD COLUMN detail_test_extra integer');
    try {
      expect(before.every((s) => s === 200)).toBe(true);
      expect((await read()).every((s) => s === 200)).toBe(true);
    } finally {
      await other.sql('ALTER TABLE entries DROP COLUMN detail_test_extra');
    }
  });
});
