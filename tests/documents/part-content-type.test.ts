import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api, type ApiResponse } from '../support/http.js';
import { type EntryWorld, elf, entryWithWorld, invoiceXml, pdf, plainZip, png, requested } from '../support/factories/index.js';
import { documentRowCount } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

/** `undefined`: the file part has no Content-Type header at all (what FormData cannot send). */
type FilePart = { bytes: Buffer; name?: string; contentType?: string };

/** A form field's text and, when it has one, its part's Content-Type. */
type FieldPart = string | { text: string; contentType: string };

/** A multipart body written by hand: a `documentType` field (unless null) and the `file` part. */
function multipart(file: FilePart, documentType: FieldPart | null = 'BASIS'): { body: Buffer; contentType: string } {
  const boundary = `----part-${randomUUID()}`;
  const chunks: Buffer[] = [];
  if (documentType !== null) {
    const field = typeof documentType === 'string' ? { text: documentType, contentType: undefined } : documentType;
    const header = ['Content-Disposition: form-data; name="documentType"'];
    if (field.contentType) header.push(`Content-Type: ${field.contentType}`);
    chunks.push(Buffer.from(`--${boundary}\r\n${header.join('\r\n')}\r\n\r\n${field.text}\r\n`));
  }
  const headers = [`Content-Disposition: form-data; name="file"; filename="${file.name ?? 'upload.bin'}"`];
  if (file.contentType !== undefined) headers.push(`Content-Type: ${file.contentType}`);
  chunks.push(Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`), file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function send(w: EntryWorld, path: string, file: FilePart, opts: { documentType?: FieldPart | null; headers?: Record<string, string> } = {}) {
  const { body, contentType } = multipart(file, opts.documentType);
  return api.request('POST', path, {
    token: w.token,
    query: { workspaceId: w.workspaceId },
    rawBody: body,
    headers: { 'Content-Type': contentType, ...opts.headers },
  });
}

const upload = (w: EntryWorld, entryId: number, file: FilePart, headers?: Record<string, string>) =>
  send(w, `/entries/${entryId}/documents/upload`, file, { headers });

function expectStored(res: ApiResponse, mimeType: string) {
  expect(res.status, res.text).toBe(200);
  expect(res.body.mimeType).toBe(mimeType);
}

describe('a file part without a Content-Type header declares nothing (CONTRACT §6)', () => {
  it('a PDF with no part Content-Type is stored as application/pdf; one declared text/plain is 415', async () => {
    const { w, entry } = await entryWithWorld(api);
    expectStored(await upload(w, entry.id, { bytes: pdf(), name: 'receipt.pdf' }), 'application/pdf');
    for (const declared of ['text/plain', 'text/plain; charset=utf-8', 'TEXT/PLAIN']) {
      const res = await upload(w, entry.id, { bytes: pdf('other'), name: 'receipt.pdf', contentType: declared });
      expectErrorBody(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(res.body.message).toContain('text/plain');
    }
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(1);
  });

  it('no header lets the content choose between text and CSV; an explicit text/plain keeps it text', async () => {
    const { w, entry } = await entryWithWorld(api);
    const csvLooking = Buffer.from('date,amount\n2026-01-01,10.00\n');
    expectStored(await upload(w, entry.id, { bytes: csvLooking, name: 'notes.txt' }), 'text/csv');
    expectStored(await upload(w, entry.id, { bytes: csvLooking, name: 'notes.txt', contentType: 'text/plain' }), 'text/plain');
    expectStored(await upload(w, entry.id, { bytes: Buffer.from('one column\n'), name: 'list.csv' }), 'text/csv');
  });

  it('other explicit types still count: a matching one is accepted, a different one is 415', async () => {
    const { w, entry } = await entryWithWorld(api);
    expectStored(await upload(w, entry.id, { bytes: png(), name: 'scan.png' }), 'image/png');
    expectStored(await upload(w, entry.id, { bytes: png(1), name: 'scan.png', contentType: 'image/png' }), 'image/png');
    expectErrorBody(await upload(w, entry.id, { bytes: png(2), contentType: 'application/pdf' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('an undeclared file is still refused when its bytes are not allowed', async () => {
    const { w, entry } = await entryWithWorld(api);
    expectErrorBody(await upload(w, entry.id, { bytes: elf(), name: 'tool' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectErrorBody(await upload(w, entry.id, { bytes: plainZip(), name: 'sheet.xlsx' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(0);
  });

  it('holds for a keyed request (its body is read whole before parsing) and for a fulfil', async () => {
    const { w, entry } = await entryWithWorld(api);
    const keyed = (file: FilePart) => upload(w, entry.id, file, { 'Idempotency-Key': randomUUID() });
    expectStored(await keyed({ bytes: pdf('keyed'), name: 'receipt.pdf' }), 'application/pdf');
    expectErrorBody(await keyed({ bytes: pdf('keyed 2'), name: 'receipt.pdf', contentType: 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');

    const doc = await requested(w, entry.id);
    const path = `/entries/${entry.id}/documents/${doc.id}/fulfill`;
    const declaredText = await send(w, path, { bytes: pdf('fulfil'), contentType: 'text/plain' }, { documentType: null });
    expectErrorBody(declaredText, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const res = await send(w, path, { bytes: pdf('fulfil'), name: 'scan.pdf' }, { documentType: null });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'UPLOADED', mimeType: 'application/pdf' });
  });
});

describe('a form field sent as an application/json part holds a JSON value (what Java\'s okhttp client sends)', () => {
  const json = (text: string, contentType = 'application/json') => ({ text, contentType });
  const sendField = (w: EntryWorld, entryId: number, documentType: FieldPart, seed: string) =>
    send(w, `/entries/${entryId}/documents/upload`, { bytes: pdf(seed), name: 'receipt.pdf' }, { documentType });

  it('a JSON string is the field\'s text', async () => {
    const { w, entry } = await entryWithWorld(api);
    const res = await sendField(w, entry.id, json('"PAYMENT_PROOF"'), 'json 1');
    expect(res.status, res.text).toBe(200);
    expect(res.body.documentType).toBe('PAYMENT_PROOF');
    const withCharset = await sendField(w, entry.id, json('"SUPPORTING"', 'application/json; charset=utf-8'), 'json 2');
    expect(withCharset.status, withCharset.text).toBe(200);
    expect(withCharset.body.documentType).toBe('SUPPORTING');
  });

  it('JSON text that is not JSON, or not a scalar, is a 400 naming the field; nothing is stored', async () => {
    const { w, entry } = await entryWithWorld(api);
    for (const [text, says] of [
      ['SUPPORTING', 'is not JSON'],
      ['{"documentType":"BASIS"}', 'must be a JSON string'],
      ['["BASIS"]', 'must be a JSON string'],
    ] as const) {
      const res = await sendField(w, entry.id, json(text), text);
      expectErrorBody(res, 400, 'BAD_REQUEST');
      expect(res.body.message).toContain('"documentType"');
      expect(res.body.message).toContain(says);
    }
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(0);
  });

  it('a plain field is taken as it is: quotes there are part of the value (400)', async () => {
    const { w, entry } = await entryWithWorld(api);
    expectErrorBody(await sendField(w, entry.id, '"BASIS"', 'plain'), 400, 'BAD_REQUEST');
    expectErrorBody(await sendField(w, entry.id, { text: '"BASIS"', contentType: 'text/plain' }, 'text'), 400, 'BAD_REQUEST');
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(0);
  });

  it('holds for every multipart form field: the inbox reads a workspaceId sent as JSON text, quoted (CONTRACT §21)', async () => {
    const { w } = await entryWithWorld(api);
    const inboxUpload = (workspaceId: string, contentType: string) => {
      const boundary = `----inbox-${randomUUID()}`;
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\nContent-Type: ${contentType}\r\n\r\n${workspaceId}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="invoice.xml"\r\n\r\n`,
        ),
        invoiceXml({ number: `J-${randomUUID().slice(0, 8)}`, issueDate: '2026-03-01', totalCents: 1190 }),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      return api.request('POST', '/inbox/documents', {
        token: w.token,
        rawBody: body,
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      });
    };
    const res = await inboxUpload(JSON.stringify(String(w.workspaceId)), 'application/json');
    expect(res.status, res.text).toBe(200);
    expect(res.body.workspaceId).toBe(w.workspaceId);
    const list = await api.get('/inbox/documents', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(list.body.items.map((d: any) => d.id)).toContain(res.body.id);
    const object = await inboxUpload(JSON.stringify({ id: w.workspaceId }), 'application/json');
    expectErrorBody(object, 400, 'BAD_REQUEST');
    expect(object.body.message).toContain('"workspaceId"');
  });
});
