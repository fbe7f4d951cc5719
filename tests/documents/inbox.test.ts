import { WorkspaceMember } from '../../server/db/models/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { ocrAvailable } from '../../server/domains/documents/extraction/ocr.js';
import { processExtraction } from '../../server/domains/documents/extraction/extraction-jobs.js';
import {
  actor,
  addProjectMember,
  buildWorkspace,
  closePeriod,
  createEntry,
  entryWorld,
  makeParty,
  type EntryWorld,
  png,
  requested,
  inboxed,
  inboxUpload,
  invoiceXml,
} from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { pdfOf } from './corpus/text-pdf-corpus.js';
import { extraction, readNow } from './inbox-helpers.js';

/** CONTRACT §21 through HTTP: the inbox, extraction after commit, suggestions, attach, create-entry, events. */
let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});

const feed = async (type: string) =>
  (await api.get('/webhook-events', { token: w.token, query: { workspaceId: w.workspaceId, type, limit: 100 } })).body.items as any[];

describe('upload and extraction after commit', () => {
  it('stores the file UNATTACHED with its extraction PENDING, then reads it (document.extracted)', async () => {
    const doc = await inboxed(api, w.token, w.workspaceId, invoiceXml({ number: 'HB-1001', issueDate: '2026-03-02', totalCents: 11900 }));
    expect(doc).toMatchObject({
      workspaceId: w.workspaceId,
      status: 'UNATTACHED',
      entryId: null,
      documentId: null,
      mimeType: 'application/xml',
      uploadedBy: w.userId,
      autoAttached: false,
    });
    expect(doc.extraction).toMatchObject({ documentId: doc.id, status: 'PENDING', totalCents: null });
    await readNow();
    const x = await extraction(api, w.token, doc.id);
    expect(x).toMatchObject({
      documentId: doc.id,
      status: 'DONE',
      source: 'EINVOICE',
      documentType: 'BASIS',
      documentNumber: 'HB-1001',
      issueDate: '2026-03-02',
      currency: 'USD',
      totalCents: 11900,
      taxCents: 1900,
      netCents: 10000,
      supplier: { name: 'Hansen Bürobedarf GmbH', taxId: 'DE811111111', iban: null },
      customer: { name: 'Our Company Ltd', taxId: 'GB999999973' },
    });
    expect(x.fields.totalCents).toEqual({ confidence: 1 });
    const events = (await feed('document.extracted')).filter((e) => e.data.object.documentId === doc.id);
    expect(events).toHaveLength(1);
    expect(events[0].data.object).toMatchObject({ status: 'DONE', totalCents: 11900 });
  });

  it('an entry document (upload) gets its extraction too, with the access of its entry', async () => {
    const entry = await createEntry(w);
    const fd = new FormData();
    fd.append('documentType', 'BASIS');
    fd.append('file', new Blob([new Uint8Array(invoiceXml({ number: 'HB-ENTRY', issueDate: '2026-03-03', totalCents: 5950 }))]), 'e.xml');
    const up = await api.request('POST', `/entries/${entry.id}/documents/upload`, {
      token: w.token,
      query: { workspaceId: w.workspaceId },
      rawBody: fd,
    });
    expect(up.status, up.text).toBe(200);
    expect((await extraction(api, w.token, up.body.id)).status).toBe('PENDING');
    await readNow();
    expect(await extraction(api, w.token, up.body.id)).toMatchObject({ status: 'DONE', documentNumber: 'HB-ENTRY', totalCents: 5950 });
    const stranger = await actor(api);
    expectErrorBody(await api.get(`/documents/${up.body.id}/extraction`, { token: stranger.token }), 404, 'NOT_FOUND');
  });

  it('a malformed file never fails its upload: FAILED (or NONE) after reading', async () => {
    const xml = await inboxed(api, w.token, w.workspaceId, Buffer.from('<?xml version="1.0"?><Invoice><broken></Invoice>'), 'bad.xml');
    const pdf = await inboxed(api, w.token, w.workspaceId, Buffer.from('%PDF-1.4\n1 0 obj <<>>\nthis is not a pdf\n', 'latin1'), 'bad.pdf');
    const image = await inboxed(api, w.token, w.workspaceId, png(3), 'scan.png');
    const csv = await inboxed(api, w.token, w.workspaceId, Buffer.from('a,b\n1,2\n'), 'rows.csv');
    await readNow();
    expect((await extraction(api, w.token, xml.id)).status).toBe('FAILED');
    expect(['FAILED', 'NONE']).toContain((await extraction(api, w.token, pdf.id)).status);
    const img = await extraction(api, w.token, image.id);
    if (!ocrAvailable()) expect(img).toMatchObject({ status: 'NONE', source: null, totalCents: null });
    else expect(img.status).not.toBe('PENDING');
    expect(await extraction(api, w.token, csv.id)).toMatchObject({ status: 'NONE', fields: {} });
  });

  it('refuses what any upload refuses: no workspaceId 400, a foreign workspace 403, no entry.create 403, a bad type 415', async () => {
    expectErrorBody(
      await inboxUpload(api, w.token, null, invoiceXml({ number: 'X', issueDate: '2026-01-01', totalCents: 100 })),
      400,
      'BAD_REQUEST',
    );
    const other = await buildWorkspace();
    expectErrorBody(
      await inboxUpload(api, w.token, other.id, invoiceXml({ number: 'X', issueDate: '2026-01-01', totalCents: 100 })),
      403,
      'FORBIDDEN',
    );
    const reader = await actor(api, { workspaceId: w.workspaceId, permissions: PERMISSIONS.filter((p) => p !== 'entry.create') });
    expectErrorBody(
      await inboxUpload(api, reader.token, w.workspaceId, invoiceXml({ number: 'X', issueDate: '2026-01-01', totalCents: 100 })),
      403,
      'FORBIDDEN',
    );
    const exe = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(56)]);
    expectErrorBody(await inboxUpload(api, w.token, w.workspaceId, exe, 'a.bin'), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('the inbox list and delete', () => {
  it('lists newest first, filters by status, pages; members only', async () => {
    const x = await buildWorkspace();
    const owner = await actor(api, { workspaceId: x.id });
    const a = await inboxed(api, owner.token, x.id, invoiceXml({ number: 'L-1', issueDate: '2026-01-01', totalCents: 100 }));
    const b = await inboxed(api, owner.token, x.id, invoiceXml({ number: 'L-2', issueDate: '2026-01-01', totalCents: 200 }));
    const page = await api.get('/inbox/documents', { token: owner.token, query: { workspaceId: x.id } });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(page.body.items.map((d: any) => d.id)).toEqual([b.id, a.id]);
    const second = await api.get('/inbox/documents', { token: owner.token, query: { workspaceId: x.id, limit: 1, offset: 1 } });
    expect(second.body.items.map((d: any) => d.id)).toEqual([a.id]);
    expect(
      (await api.get('/inbox/documents', { token: owner.token, query: { workspaceId: x.id, status: 'ATTACHED' } })).body,
    ).toMatchObject({ total: 0, items: [] });
    expectErrorBody(await api.get('/inbox/documents', { token: w.token, query: { workspaceId: x.id } }), 403, 'FORBIDDEN');
    expectErrorBody(
      await api.get('/inbox/documents', { token: owner.token, query: { workspaceId: x.id, status: 'LOST' } }),
      400,
      'BAD_REQUEST',
    );
    const projectOnly = await actor(api);
    await addProjectMember(x.projectIds[0], projectOnly.id);
    expectErrorBody(await api.get('/inbox/documents', { token: projectOnly.token, query: { workspaceId: x.id } }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get(`/inbox/documents/${a.id}`, { token: projectOnly.token }), 404, 'NOT_FOUND');
  });

  it('deletes an UNATTACHED document (then 404; the file goes with the last reference); another workspace sees 404', async () => {
    const bytes = invoiceXml({ number: 'DEL-1', issueDate: '2026-01-01', totalCents: 4242 });
    const doc = await inboxed(api, w.token, w.workspaceId, bytes);
    const stranger = await actor(api);
    expectErrorBody(await api.del(`/inbox/documents/${doc.id}`, { token: stranger.token }), 404, 'NOT_FOUND');
    const res = await api.del(`/inbox/documents/${doc.id}`, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    expectErrorBody(await api.get(`/inbox/documents/${doc.id}`, { token: w.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/inbox/documents/${doc.id}`, { token: w.token }), 404, 'NOT_FOUND');
  });
});

describe('suggestions', () => {
  it('the entry of the same total, date, supplier and number first, with its reasons', async () => {
    const x = await entryWorld(api);
    const supplier = await makeParty(api, x.token, x.workspaceId, 'Hansen Bürobedarf GmbH');
    const right = await createEntry(x, { amountCents: 23800, entryDate: '2026-04-03', reference: 'HB-2040', toPartyId: supplier });
    const sameAmountFar = await createEntry(x, { amountCents: 23800, entryDate: '2026-05-20' });
    const sameSupplier = await createEntry(x, { amountCents: 9900, entryDate: '2026-04-01', toPartyId: supplier });
    await createEntry(x, { amountCents: 23800, baseCurrency: 'EUR', entryDate: '2026-04-02' });
    // a text PDF (its total is not exact, so auto-attach leaves it to a person)
    const bytes = await pdfOf({
      layout: 'classic',
      supplier: 'Hansen Bürobedarf GmbH',
      customer: 'Our Company Ltd',
      number: 'HB-2040',
      issueDate: '2026-04-02',
      dueDate: '2026-05-02',
      currency: 'USD',
      taxRate: 0,
      lines: [{ description: 'Toner', quantity: 2, unit: 11900 }],
    });
    const doc = await inboxed(api, x.token, x.workspaceId, bytes, 'hansen.pdf');
    expect((await api.get(`/inbox/documents/${doc.id}/suggestions`, { token: x.token })).body).toEqual([]); // not read yet
    await readNow();
    const res = await api.get(`/inbox/documents/${doc.id}/suggestions`, { token: x.token });
    expect(res.status, res.text).toBe(200);
    const ids = res.body.map((s: any) => s.entryId);
    expect(ids[0]).toBe(right.id);
    expect(ids).toContain(sameAmountFar.id);
    expect(ids).toContain(sameSupplier.id);
    expect(ids.indexOf(sameAmountFar.id)).toBeLessThan(ids.indexOf(sameSupplier.id)); // the amount first
    const kinds = res.body[0].reasons.map((r: any) => r.kind).sort();
    expect(kinds).toEqual(['AMOUNT', 'CURRENCY', 'DATE', 'NUMBER', 'PARTY']);
    expect(res.body[0].score).toBeGreaterThan(res.body[1].score);
    for (const s of res.body) expect(s.score).toBeGreaterThanOrEqual(0);
    expect(res.body.length).toBeLessThanOrEqual(10);
    const stranger = await actor(api);
    expectErrorBody(await api.get(`/inbox/documents/${doc.id}/suggestions`, { token: stranger.token }), 404, 'NOT_FOUND');
  });
});

describe('attach', () => {
  it('fulfils a REQUESTED document of that type, recomputes completeness, records DOCUMENT_UPLOADED, publishes document.attached', async () => {
    const entry = await createEntry(w, { amountCents: 777 });
    const placeholder = await requested(w, entry.id, { documentName: 'Invoice', documentType: 'BASIS' });
    const doc = await inboxed(api, w.token, w.workspaceId, invoiceXml({ number: 'AT-1', issueDate: '2026-02-01', totalCents: 777 }));
    const res = await api.post(`/inbox/documents/${doc.id}/attach`, { entryId: entry.id }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ATTACHED',
      entryId: entry.id,
      documentId: placeholder.id,
      attachedBy: w.userId,
      autoAttached: false,
    });
    const docs = (await api.get(`/entries/${entry.id}/documents`, { token: w.token })).body;
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({
      id: placeholder.id,
      status: 'UPLOADED',
      documentName: 'Invoice',
      sha256: doc.sha256,
      mimeType: 'application/xml',
    });
    const events = (await api.get(`/entries/${entry.id}/events`, { token: w.token })).body;
    expect(events.at(-1)).toMatchObject({ kind: 'DOCUMENT_UPLOADED' });
    expect(events.at(-1).data).toMatchObject({ documentId: placeholder.id, inboxDocumentId: doc.id, fulfilled: true });
    const attached = (await feed('document.attached')).filter((e) => e.data.object.id === doc.id);
    expect(attached).toHaveLength(1);
    expectErrorBody(await api.post(`/inbox/documents/${doc.id}/attach`, { entryId: entry.id }, { token: w.token }), 409, 'CONFLICT');
    expectErrorBody(await api.del(`/inbox/documents/${doc.id}`, { token: w.token }), 409, 'CONFLICT');
    const listed = await api.get('/inbox/documents', { token: w.token, query: { workspaceId: w.workspaceId, status: 'ATTACHED' } });
    expect(listed.body.items.map((d: any) => d.id)).toContain(doc.id);
  });

  it('without a placeholder: a new UPLOADED document of the type read (CREDIT_NOTE for a credit note) keeps the inbox id', async () => {
    const entry = await createEntry(w, { amountCents: 500 });
    const doc = await inboxed(
      api,
      w.token,
      w.workspaceId,
      invoiceXml({ number: 'CN-5', issueDate: '2026-02-01', totalCents: 500, credit: true }),
    );
    await readNow();
    const res = await api.post(`/inbox/documents/${doc.id}/attach`, { entryId: entry.id }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.documentId).toBe(doc.id);
    const [d] = (await api.get(`/entries/${entry.id}/documents`, { token: w.token })).body;
    expect(d).toMatchObject({ id: doc.id, documentType: 'CREDIT_NOTE', status: 'UPLOADED', documentName: 'invoice.xml' });
    expect((await extraction(api, w.token, doc.id)).documentType).toBe('CREDIT_NOTE');
  });

  it('is refused for a VOIDED entry or a closed period (409), an unseen entry (404), one of another workspace (400), without entry.create (403)', async () => {
    const voided = await createEntry(w);
    expect((await api.post(`/entries/${voided.id}/void`, { reason: 'test' }, { token: w.token })).status).toBe(200);
    const doc = await inboxed(api, w.token, w.workspaceId, invoiceXml({ number: 'R-1', issueDate: '2026-02-01', totalCents: 100 }));
    expectErrorBody(await api.post(`/inbox/documents/${doc.id}/attach`, { entryId: voided.id }, { token: w.token }), 409, 'CONFLICT');
    const old = await createEntry(w, { entryDate: '2024-03-10' });
    await closePeriod(api, w.token, w.workspaceId, '2024-03-01', '2024-03-31');
    expectErrorBody(await api.post(`/inbox/documents/${doc.id}/attach`, { entryId: old.id }, { token: w.token }), 409, 'CONFLICT');
    const other = await entryWorld(api);
    const foreign = await createEntry(other);
    // an entry of a workspace the caller cannot access answers exactly as a missing one (CONTRACT §2): 404, nothing revealed
    const unseen = await api.post(`/inbox/documents/${doc.id}/attach`, { entryId: foreign.id }, { token: w.token });
    expectErrorBody(unseen, 404, 'NOT_FOUND');
    const missing = await api.post(`/inbox/documents/${doc.id}/attach`, { entryId: 999_999_999 }, { token: w.token });
    expectErrorBody(missing, 404, 'NOT_FOUND');
    expect(unseen.body).toEqual(missing.body);
    expect(unseen.text).not.toContain(String(foreign.id));
    // one the caller sees, of another of its workspaces: a rule visible from the request, 400
    const mine = await entryWorld(api);
    await WorkspaceMember.create({ workspaceId: mine.workspaceId, userId: w.userId });
    const elsewhere = await createEntry(mine);
    expectErrorBody(await api.post(`/inbox/documents/${doc.id}/attach`, { entryId: elsewhere.id }, { token: w.token }), 400, 'BAD_REQUEST');
    const reader = await actor(api, { workspaceId: w.workspaceId, permissions: PERMISSIONS.filter((p) => p !== 'entry.create') });
    expectErrorBody(await api.post(`/inbox/documents/${doc.id}/attach`, { entryId: old.id }, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(
      await api.post(`/inbox/documents/${doc.id}/attach`, { entryId: old.id, extra: 1 }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    expect((await api.get(`/inbox/documents/${doc.id}`, { token: w.token })).body.status).toBe('UNATTACHED'); // nothing half-written
  });
});

describe('create-entry', () => {
  it('creates the EXPENSE from the extraction (supplier party found or created, rules with trigger DOCUMENT) and attaches it', async () => {
    const x = await entryWorld(api);
    const documentRule = await api.post(
      '/rules',
      {
        workspaceId: x.workspaceId,
        name: 'Office supplies',
        conditions: [{ field: 'counterparty', operator: 'contains', value: 'Bürobedarf' }],
        actions: [{ type: 'SET_DESCRIPTION', description: 'Office supplies' }],
        triggers: ['DOCUMENT'],
      },
      { token: x.token },
    );
    expect(documentRule.status, documentRule.text).toBe(200);
    expect(documentRule.body.triggers).toEqual(['DOCUMENT']);
    const createOnly = await api.post(
      '/rules',
      {
        workspaceId: x.workspaceId,
        name: 'Create only',
        priority: 5,
        conditions: [{ field: 'amountCents', operator: 'gte', value: 1 }],
        actions: [{ type: 'SET_EXCLUDE_FROM_SYNC', value: true }],
        triggers: ['CREATE'],
      },
      { token: x.token },
    );
    expect(createOnly.status, createOnly.text).toBe(200);
    const doc = await inboxed(
      api,
      x.token,
      x.workspaceId,
      invoiceXml({ number: 'HB-3001', issueDate: '2026-06-15', totalCents: 35700, currency: 'EUR' }),
    );
    await readNow();
    const res = await api.post(`/inbox/documents/${doc.id}/create-entry`, { projectId: x.projectId }, { token: x.token });
    expect(res.status, res.text).toBe(200);
    const { entry, document } = res.body;
    expect(entry).toMatchObject({
      entryType: 'EXPENSE',
      amountCents: 35700,
      baseCurrency: 'EUR',
      entryDate: '2026-06-15',
      reference: 'HB-3001',
      description: 'Office supplies',
      excludeFromSync: false,
      fromPartyId: null,
      projectId: x.projectId,
    });
    expect(document).toMatchObject({ status: 'ATTACHED', entryId: entry.id, documentId: doc.id });
    const party = (await api.get(`/parties?workspaceId=${x.workspaceId}`, { token: x.token })).body.find(
      (p: any) => p.id === entry.toPartyId,
    );
    expect(party).toMatchObject({ name: 'Hansen Bürobedarf GmbH', taxId: 'DE811111111', partyType: 'ORGANIZATION' });
    const kinds = (await api.get(`/entries/${entry.id}/events`, { token: x.token })).body.map((e: any) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['ENTRY_CREATED', 'RULE_APPLIED', 'DOCUMENT_UPLOADED']));
    // a second invoice of that supplier finds the party instead of making another
    const again = await inboxed(
      api,
      x.token,
      x.workspaceId,
      invoiceXml({ number: 'HB-3002', issueDate: '2026-06-20', totalCents: 1190, currency: 'EUR' }),
    );
    await readNow();
    const second = await api.post(
      `/inbox/documents/${again.id}/create-entry`,
      { projectId: x.projectId, entryType: 'EXPENSE', amountCents: 1000, description: 'Paper' },
      { token: x.token },
    );
    expect(second.status, second.text).toBe(200);
    expect(second.body.entry).toMatchObject({ toPartyId: entry.toPartyId, amountCents: 1000, description: 'Office supplies' });
  });

  it('400 when a needed value was neither read nor given; a foreign project 400; nothing half-written', async () => {
    const doc = await inboxed(api, w.token, w.workspaceId, Buffer.from('x,y\n1,2\n'), 'nothing.csv');
    await readNow();
    const before = (await api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, limit: 1 } })).body.total;
    expectErrorBody(
      await api.post(`/inbox/documents/${doc.id}/create-entry`, { projectId: w.projectId }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    const other = await buildWorkspace();
    expectErrorBody(
      await api.post(
        `/inbox/documents/${doc.id}/create-entry`,
        { projectId: other.projectIds[0], amountCents: 5, baseCurrency: 'USD', entryDate: '2026-01-01' },
        { token: w.token },
      ),
      400,
      'BAD_REQUEST',
    );
    expect((await api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, limit: 1 } })).body.total).toBe(before);
    const ok = await api.post(
      `/inbox/documents/${doc.id}/create-entry`,
      { projectId: w.projectId, amountCents: 5, baseCurrency: 'USD', entryDate: '2026-01-01' },
      { token: w.token },
    );
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.entry).toMatchObject({ amountCents: 5, toPartyId: null, description: 'nothing.csv', reference: null });
  });
});

describe('auto-attach', () => {
  const rows = async (sql: string, replacements: Record<string, unknown>) =>
    db().query<any>(sql, { replacements, type: QueryTypes.SELECT });

  it('attaches the one entry of the exact total, currency and number within 30 days (attachedBy null, event data auto)', async () => {
    const x = await entryWorld(api);
    const entry = await createEntry(x, { amountCents: 48190, entryDate: '2026-07-20', reference: 'HB-4100' });
    await createEntry(x, { amountCents: 48190, entryDate: '2026-09-20', reference: 'HB-4100' }); // outside the 30 days
    const doc = await inboxed(api, x.token, x.workspaceId, invoiceXml({ number: 'HB-4100', issueDate: '2026-07-01', totalCents: 48190 }));
    await readNow();
    const after = (await api.get(`/inbox/documents/${doc.id}`, { token: x.token })).body;
    expect(after).toMatchObject({ status: 'ATTACHED', entryId: entry.id, attachedBy: null, autoAttached: true });
    const events = (await api.get(`/entries/${entry.id}/events`, { token: x.token })).body;
    expect(events.at(-1)).toMatchObject({ kind: 'DOCUMENT_UPLOADED', actorType: 'SYSTEM' });
    expect(events.at(-1).data.auto).toBe(true);
    const [published] = (
      await api.get('/webhook-events', { token: x.token, query: { workspaceId: x.workspaceId, type: 'document.attached' } })
    ).body.items;
    expect(published.data).toMatchObject({ auto: true, object: { id: doc.id, autoAttached: true } });
  });

  it('attaches nothing ambiguous: two matching entries, an entry that has its document, a total read from text, another currency', async () => {
    const x = await entryWorld(api);
    const supplier = await makeParty(api, x.token, x.workspaceId, 'Hansen Bürobedarf GmbH');
    await createEntry(x, { amountCents: 6000, entryDate: '2026-08-01', toPartyId: supplier });
    await createEntry(x, { amountCents: 6000, entryDate: '2026-08-03', toPartyId: supplier });
    const two = await inboxed(api, x.token, x.workspaceId, invoiceXml({ number: 'AMB-1', issueDate: '2026-08-02', totalCents: 6000 }));
    const documented = await createEntry(x, { amountCents: 7000, entryDate: '2026-08-02', reference: 'AMB-2' });
    const fd = new FormData();
    fd.append('documentType', 'BASIS');
    fd.append('file', new Blob([new Uint8Array(png(9))]), 'scan.png');
    expect(
      (
        await api.request('POST', `/entries/${documented.id}/documents/upload`, {
          token: x.token,
          query: { workspaceId: x.workspaceId },
          rawBody: fd,
        })
      ).status,
    ).toBe(200);
    const has = await inboxed(api, x.token, x.workspaceId, invoiceXml({ number: 'AMB-2', issueDate: '2026-08-02', totalCents: 7000 }));
    await createEntry(x, { amountCents: 8000, entryDate: '2026-08-02', reference: 'AMB-3', baseCurrency: 'EUR' });
    const currency = await inboxed(
      api,
      x.token,
      x.workspaceId,
      invoiceXml({ number: 'AMB-3', issueDate: '2026-08-02', totalCents: 8000, currency: 'USD' }),
    );
    await readNow();
    for (const d of [two, has, currency]) {
      expect((await api.get(`/inbox/documents/${d.id}`, { token: x.token })).body).toMatchObject({
        status: 'UNATTACHED',
        autoAttached: false,
      });
    }
    const checked = await rows('SELECT count(*)::int AS n FROM inbox_documents WHERE workspace_id = :ws AND auto_checked', {
      ws: x.workspaceId,
    });
    expect(checked[0].n).toBe(3);
  });

  it('two invoices racing for one entry: one is attached, the other waits (the check runs under the entry lock)', async () => {
    const x = await entryWorld(api);
    const supplier = await makeParty(api, x.token, x.workspaceId, 'Hansen Bürobedarf GmbH');
    const entry = await createEntry(x, { amountCents: 9100, entryDate: '2026-09-02', toPartyId: supplier });
    const a = await inboxed(api, x.token, x.workspaceId, invoiceXml({ number: 'RACE-1', issueDate: '2026-09-01', totalCents: 9100 }));
    const b = await inboxed(api, x.token, x.workspaceId, invoiceXml({ number: 'RACE-2', issueDate: '2026-09-01', totalCents: 9100 }));
    await Promise.all([
      processExtraction({ workspaceId: x.workspaceId, sha256: a.sha256 }),
      processExtraction({ workspaceId: x.workspaceId, sha256: b.sha256 }),
    ]);
    const states = await Promise.all([a, b].map(async (d) => (await api.get(`/inbox/documents/${d.id}`, { token: x.token })).body));
    expect(states.map((d) => d.status).sort()).toEqual(['ATTACHED', 'UNATTACHED']);
    expect(states.find((d) => d.status === 'ATTACHED').entryId).toBe(entry.id);
    expect((await api.get(`/entries/${entry.id}/documents`, { token: x.token })).body).toHaveLength(1);
  });
});
