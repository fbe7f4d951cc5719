import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../../server/runtime.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { actor, entryIn, type EntryWorld, entryWithWorld, pdf, png, requested, upload, uploaded } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { events, getEntry } from '../support/entries.js';
import { ISO_TS, UUID } from '../support/entries.js';
import { approve, DOCUMENT_KEYS, fulfil, getDoc, reject, sha256 } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const kinds = async (w: EntryWorld, entryId: number) => (await events(w, entryId)).map((e) => e.kind);

/** The document and the entry's event count, to prove that a refused call changed nothing. */
async function state(w: EntryWorld, entryId: number, documentId: string) {
  return { doc: await getDoc(w, entryId, documentId), events: (await events(w, entryId)).length };
}

/** A document of a fresh entry brought into `status` through the API. */
async function docIn(status: 'REQUESTED' | 'UPLOADED' | 'APPROVED' | 'REJECTED') {
  const { w, entry } = await entryWithWorld(api);
  const doc = status === 'REQUESTED' ? await requested(w, entry.id) : await uploaded(w, entry.id);
  if (status === 'APPROVED') expect((await approve(w, entry.id, doc.id)).status).toBe(200);
  if (status === 'REJECTED') expect((await reject(w, entry.id, doc.id, 'blurry scan')).status).toBe(200);
  return { w, entry, doc: await getDoc(w, entry.id, doc.id) };
}

describe('request', () => {
  it('creates a REQUESTED placeholder without a file and records DOCUMENT_REQUESTED', async () => {
    const { w, entry } = await entryWithWorld(api);
    const res = await api.post(
      `/entries/${entry.id}/documents/request`,
      { documentName: 'Hotel invoice', documentType: 'SUPPORTING', comment: 'The one from Berlin' },
      { token: w.token },
    );
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(DOCUMENT_KEYS);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      entryId: entry.id,
      documentName: 'Hotel invoice',
      documentType: 'SUPPORTING',
      status: 'REQUESTED',
      mimeType: null,
      fileSize: null,
      sha256: null,
      uploadedBy: null,
      approvedBy: null,
      comment: 'The one from Berlin',
      rejectionReason: null,
      createdAt: expect.stringMatching(ISO_TS),
      updatedAt: expect.stringMatching(ISO_TS),
    });
    const evs = await events(w, entry.id);
    expect(evs.at(-1)).toMatchObject({
      kind: 'DOCUMENT_REQUESTED',
      actorType: 'USER',
      actorId: w.userId,
      data: { documentId: res.body.id, documentName: 'Hotel invoice', documentType: 'SUPPORTING', comment: 'The one from Berlin' },
    });
  });

  it('takes the comment as optional and refuses bad bodies with 400', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await requested(w, entry.id, { documentName: 'Receipt', documentType: 'PAYMENT_PROOF' });
    expect(doc.comment).toBeNull();
    const path = `/entries/${entry.id}/documents/request`;
    for (const body of [
      { documentType: 'BASIS' },
      { documentName: '', documentType: 'BASIS' },
      { documentName: 'x', documentType: 'INVOICE' },
      { documentName: 'x', documentType: 'BASIS', status: 'APPROVED' },
      { documentName: 'x'.repeat(256), documentType: 'BASIS' },
    ]) {
      expectErrorBody(await api.post(path, body, { token: w.token }), 400, 'BAD_REQUEST');
    }
    expect((await api.get(`/entries/${entry.id}/documents`, { token: w.token })).body).toHaveLength(1);
  });
});

describe('upload', () => {
  it('stores the file as UPLOADED with its sniffed type, size and SHA-256, and records DOCUMENT_UPLOADED', async () => {
    const { w, entry } = await entryWithWorld(api);
    const bytes = pdf('march');
    const res = await upload(w, entry.id, { bytes, name: 'receipt-march.pdf', type: 'application/pdf', documentType: 'BASIS' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      entryId: entry.id,
      documentName: 'receipt-march.pdf',
      documentType: 'BASIS',
      status: 'UPLOADED',
      mimeType: 'application/pdf',
      fileSize: bytes.length,
      sha256: sha256(bytes),
      uploadedBy: w.userId,
      approvedBy: null,
      comment: null,
      rejectionReason: null,
      createdAt: expect.stringMatching(ISO_TS),
      updatedAt: expect.stringMatching(ISO_TS),
    });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({
      kind: 'DOCUMENT_UPLOADED',
      actorId: w.userId,
      data: { documentId: res.body.id, documentType: 'BASIS', sha256: sha256(bytes), fileSize: bytes.length, mimeType: 'application/pdf' },
    });
    const list = await api.get(`/entries/${entry.id}/documents`, { token: w.token });
    expect(list.body).toEqual([res.body]);
    expect(await getDoc(w, entry.id, res.body.id)).toEqual(res.body);
    expect((await getEntry(w, entry.id)).documents).toEqual([res.body]);
  });

  it('lists documents oldest first', async () => {
    const { w, entry } = await entryWithWorld(api);
    const a = await requested(w, entry.id, { documentName: 'A' });
    const b = await uploaded(w, entry.id, { name: 'b.png' });
    const c = await requested(w, entry.id, { documentName: 'C' });
    const list = await api.get(`/entries/${entry.id}/documents`, { token: w.token });
    expect(list.body.map((d: any) => d.id)).toEqual([a.id, b.id, c.id]);
  });
});

describe('fulfil', () => {
  it('REQUESTED → UPLOADED: the file is attached, the requested name, type and comment stay', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await requested(w, entry.id, { documentName: 'Supplier invoice', documentType: 'BASIS', comment: 'please' });
    const bytes = png(3);
    const res = await fulfil(w, entry.id, doc.id, { bytes, name: 'IMG_2033.png' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: doc.id,
      documentName: 'Supplier invoice',
      documentType: 'BASIS',
      status: 'UPLOADED',
      mimeType: 'image/png',
      fileSize: bytes.length,
      sha256: sha256(bytes),
      uploadedBy: w.userId,
      comment: 'please',
    });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({
      kind: 'DOCUMENT_FULFILLED',
      data: { documentId: doc.id, from: 'REQUESTED', sha256: sha256(bytes), previousSha256: null },
    });
  });

  it('REJECTED → UPLOADED replaces the file and clears the rejection', async () => {
    const { w, entry, doc } = await docIn('REJECTED');
    expect(doc.rejectionReason).toBe('blurry scan');
    const bytes = pdf('sharper');
    const res = await fulfil(w, entry.id, doc.id, { bytes, name: 'better.pdf', workspaceId: w.workspaceId });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'UPLOADED', mimeType: 'application/pdf', sha256: sha256(bytes), rejectionReason: null });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({
      kind: 'DOCUMENT_FULFILLED',
      data: { from: 'REJECTED', previousSha256: doc.sha256 },
    });
  });

  it.each(['UPLOADED', 'APPROVED'] as const)('%s → 409, nothing changes', async (status) => {
    const { w, entry, doc } = await docIn(status);
    const before = await state(w, entry.id, doc.id);
    expectErrorBody(await fulfil(w, entry.id, doc.id, { bytes: png(9) }), 409, 'CONFLICT');
    expect(await state(w, entry.id, doc.id)).toEqual(before);
  });

  it('refuses a documentType other than the requested one (400), accepts the same one', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await requested(w, entry.id, { documentType: 'PAYMENT_PROOF' });
    expectErrorBody(await fulfil(w, entry.id, doc.id, { bytes: png(), documentType: 'BASIS' }), 400, 'BAD_REQUEST');
    const ok = await fulfil(w, entry.id, doc.id, { bytes: png(), documentType: 'PAYMENT_PROOF' });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe('approve', () => {
  it.each(['UPLOADED', 'REJECTED'] as const)('%s → APPROVED with approvedBy = caller; records DOCUMENT_APPROVED', async (from) => {
    const { w, entry, doc } = await docIn(from);
    const reviewer = await actor(api, { workspaceId: w.workspaceId, permissions: ['entry.review'] });
    const res = await approve(w, entry.id, doc.id, reviewer.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: doc.id, status: 'APPROVED', approvedBy: reviewer.id, rejectionReason: null, sha256: doc.sha256 });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({
      kind: 'DOCUMENT_APPROVED',
      actorId: reviewer.id,
      data: { documentId: doc.id, from },
    });
  });

  it.each(['REQUESTED', 'APPROVED'] as const)('%s → 409, nothing changes', async (status) => {
    const { w, entry, doc } = await docIn(status);
    const before = await state(w, entry.id, doc.id);
    expectErrorBody(await approve(w, entry.id, doc.id), 409, 'CONFLICT');
    expect(await state(w, entry.id, doc.id)).toEqual(before);
  });

  it('refuses a body field (strict write bodies)', async () => {
    const { w, entry, doc } = await docIn('UPLOADED');
    const res = await api.patch(`/entries/${entry.id}/documents/${doc.id}/approve`, { approvedBy: w.userId }, { token: w.token });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect((await getDoc(w, entry.id, doc.id)).status).toBe('UPLOADED');
  });
});

describe('reject', () => {
  it.each(['UPLOADED', 'APPROVED'] as const)('%s → REJECTED with the reason stored; records DOCUMENT_REJECTED', async (from) => {
    const { w, entry, doc } = await docIn(from);
    const res = await reject(w, entry.id, doc.id, '  Wrong supplier  ');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: doc.id, status: 'REJECTED', rejectionReason: 'Wrong supplier', approvedBy: null });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({
      kind: 'DOCUMENT_REJECTED',
      data: { documentId: doc.id, from, reason: 'Wrong supplier' },
    });
  });

  it.each(['REQUESTED', 'REJECTED'] as const)('%s → 409, nothing changes', async (status) => {
    const { w, entry, doc } = await docIn(status);
    const before = await state(w, entry.id, doc.id);
    expectErrorBody(await reject(w, entry.id, doc.id, 'again'), 409, 'CONFLICT');
    expect(await state(w, entry.id, doc.id)).toEqual(before);
  });

  it('needs a reason: missing, empty or blank → 400, nothing changes', async () => {
    const { w, entry, doc } = await docIn('UPLOADED');
    const before = await state(w, entry.id, doc.id);
    expectErrorBody(await reject(w, entry.id, doc.id), 400, 'BAD_REQUEST');
    expectErrorBody(await reject(w, entry.id, doc.id, ''), 400, 'BAD_REQUEST');
    expectErrorBody(await reject(w, entry.id, doc.id, '   '), 400, 'BAD_REQUEST');
    expect(await state(w, entry.id, doc.id)).toEqual(before);
  });
});

describe('entries that are VOIDED or CANCELLED', () => {
  it.each(['VOIDED', 'CANCELLED'])('refuse every document change with 409 (%s)', async (status) => {
    const { w, entry } = await entryWithWorld(api);
    const up = await uploaded(w, entry.id, { name: 'a.png' });
    const req = await requested(w, entry.id);
    const decided = await uploaded(w, entry.id, { name: 'b.png', bytes: png(5) });
    expect((await approve(w, entry.id, decided.id)).status).toBe(200);
    const rejected = await uploaded(w, entry.id, { name: 'c.png', bytes: png(6) });
    expect((await reject(w, entry.id, rejected.id, 'no')).status).toBe(200);
    const res =
      status === 'VOIDED'
        ? await api.post(`/entries/${entry.id}/void`, { reason: 'duplicate' }, { token: w.token })
        : await api.patch(`/entries/${entry.id}/status`, { status: 'CANCELLED', reason: 'withdrawn' }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    const docsBefore = (await api.get(`/entries/${entry.id}/documents`, { token: w.token })).body;
    const eventsBefore = (await events(w, entry.id)).length;

    expectErrorBody(await upload(w, entry.id, { bytes: png(7) }), 409, 'CONFLICT');
    expectErrorBody(await requested409(w, entry.id), 409, 'CONFLICT');
    expectErrorBody(await fulfil(w, entry.id, req.id, { bytes: png(8) }), 409, 'CONFLICT');
    expectErrorBody(await fulfil(w, entry.id, rejected.id, { bytes: png(8) }), 409, 'CONFLICT');
    expectErrorBody(await approve(w, entry.id, up.id), 409, 'CONFLICT');
    expectErrorBody(await reject(w, entry.id, decided.id, 'late'), 409, 'CONFLICT');

    expect((await api.get(`/entries/${entry.id}/documents`, { token: w.token })).body).toEqual(docsBefore);
    expect((await events(w, entry.id)).length).toBe(eventsBefore);
  });

  it('still lets other statuses (UNDER_REVIEW, COMPLETED, REJECTED) take documents', async () => {
    const { w } = await entryWithWorld(api);
    for (const status of ['COMPLETED', 'REJECTED', 'UNDER_REVIEW']) {
      const entry = await entryIn(w, status);
      const doc = await uploaded(w, entry.id);
      expect((await approve(w, entry.id, doc.id)).status).toBe(200);
    }
  });
});

const requested409 = (w: EntryWorld, entryId: number) =>
  w.api.post(`/entries/${entryId}/documents/request`, { documentName: 'Late', documentType: 'BASIS' }, { token: w.token });

describe('permissions', () => {
  it('upload and fulfil need entry.create; request, approve and reject need entry.review (403, nothing changes)', async () => {
    const { w, entry } = await entryWithWorld(api);
    const up = await uploaded(w, entry.id);
    const req = await requested(w, entry.id);
    const noCreate = await actor(api, { workspaceId: w.workspaceId, permissions: PERMISSIONS.filter((p) => p !== 'entry.create') });
    const noReview = await actor(api, { workspaceId: w.workspaceId, permissions: PERMISSIONS.filter((p) => p !== 'entry.review') });
    const eventsBefore = (await events(w, entry.id)).length;

    expectErrorBody(await upload(w, entry.id, { bytes: png(2), token: noCreate.token }), 403, 'FORBIDDEN');
    expectErrorBody(await fulfil(w, entry.id, req.id, { bytes: png(2), token: noCreate.token }), 403, 'FORBIDDEN');
    expectErrorBody(
      await api.post(`/entries/${entry.id}/documents/request`, { documentName: 'x', documentType: 'BASIS' }, { token: noReview.token }),
      403,
      'FORBIDDEN',
    );
    expectErrorBody(await approve(w, entry.id, up.id, noReview.token), 403, 'FORBIDDEN');
    expectErrorBody(await reject(w, entry.id, up.id, 'no', noReview.token), 403, 'FORBIDDEN');
    expect((await events(w, entry.id)).length).toBe(eventsBefore);

    // the other half of each pair is enough for its own operations
    expect((await upload(w, entry.id, { bytes: png(2), token: noReview.token })).status).toBe(200);
    expect((await approve(w, entry.id, up.id, noCreate.token)).status).toBe(200);
  });

  it('list, get and download need no named permission, only a visible entry', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await uploaded(w, entry.id);
    const reader = await actor(api, { workspaceId: w.workspaceId, permissions: [] });
    expect((await api.get(`/entries/${entry.id}/documents`, { token: reader.token })).body).toHaveLength(1);
    expect((await api.get(`/entries/${entry.id}/documents/${doc.id}`, { token: reader.token })).body.id).toBe(doc.id);
    expect((await api.get(`/entries/${entry.id}/documents/${doc.id}/download`, { token: reader.token })).status).toBe(200);
  });
});

describe('audit trail', () => {
  it('records one event per change, in order, on an intact hash chain', async () => {
    const { w, entry } = await entryWithWorld(api);
    const before = (await kinds(w, entry.id)).length;
    const req = await requested(w, entry.id);
    await fulfil(w, entry.id, req.id, { bytes: png(1) });
    await reject(w, entry.id, req.id, 'cropped');
    await fulfil(w, entry.id, req.id, { bytes: png(2) });
    await approve(w, entry.id, req.id);
    await uploaded(w, entry.id, { bytes: png(3) });
    expect((await kinds(w, entry.id)).slice(before)).toEqual([
      'DOCUMENT_REQUESTED',
      'DOCUMENT_FULFILLED',
      'DOCUMENT_REJECTED',
      'DOCUMENT_FULFILLED',
      'DOCUMENT_APPROVED',
      'DOCUMENT_UPLOADED',
    ]);
    const verify = await api.get(`/entries/${entry.id}/events/verify`, { token: w.token });
    expect(verify.body).toMatchObject({ valid: true, firstBrokenEventId: null });
  });
});

describe('concurrent decisions', () => {
  it('parallel approvals of one document: exactly one wins, the rest are 409, one event', async () => {
    const { w, entry, doc } = await docIn('UPLOADED');
    const results = await Promise.all(Array.from({ length: 6 }, () => approve(w, entry.id, doc.id)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect((await kinds(w, entry.id)).filter((k) => k === 'DOCUMENT_APPROVED')).toHaveLength(1);
  });

  it('parallel fulfils of one placeholder: exactly one file is attached', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await requested(w, entry.id);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => fulfil(w, entry.id, doc.id, { bytes: png(400 + i) })));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(4);
    expect((await getDoc(w, entry.id, doc.id)).sha256).toBe(winners[0].body.sha256);
    expect((await kinds(w, entry.id)).filter((k) => k === 'DOCUMENT_FULFILLED')).toHaveLength(1);
    // the refused ones had written their files first; none of them is left behind
    const stored = (i: number) => {
      const sha = sha256(png(400 + i));
      return existsSync(path.resolve(runtime().config.DATA_DIR, 'documents', sha.slice(0, 2), sha.slice(2, 4), sha));
    };
    expect(results.map((r, i) => [r.status, stored(i)])).toEqual(results.map((r) => [r.status, r.status === 200]));
  });
});
