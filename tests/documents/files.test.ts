import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runtime } from '../../server/runtime.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import {
  docx,
  elf,
  entryWithWorld,
  gif,
  heic,
  jpeg,
  ods,
  pdf,
  pe,
  plainZip,
  png,
  requested,
  tiff,
  upload,
  uploaded,
  webp,
  xlsx,
} from '../support/factories/index.js';
import { documentRowCount, download, fulfil, sha256 } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const originalLimit = runtime().config.UPLOAD_LIMIT_BYTES;
afterEach(() => {
  runtime().config.UPLOAD_LIMIT_BYTES = originalLimit;
});

describe('type sniffing (CONTRACT §6)', () => {
  it('stores the sniffed type: a PNG named .pdf is image/png', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await uploaded(w, entry.id, { bytes: png(), name: 'invoice.pdf' });
    expect(doc).toMatchObject({ documentName: 'invoice.pdf', mimeType: 'image/png' });
    const file = await download(api, w.token, entry.id, doc.id);
    expect(file.headers.get('content-type')).toBe('image/png');
  });

  it('refuses a PNG whose part declares application/pdf (415), storing nothing', async () => {
    const { w, entry } = await entryWithWorld(api);
    const res = await upload(w, entry.id, { bytes: png(), name: 'invoice.pdf', type: 'application/pdf' });
    expectErrorBody(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(res.body.message).toContain('image/png');
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(0);
  });

  it.each([
    ['an ELF executable', elf(), 'tool'],
    ['a PE executable', pe(), 'setup.exe'],
    ['a PE executable named .pdf', pe(), 'invoice.pdf'],
    ['a zip that is not an office document', plainZip(), 'archive.zip'],
    ['a zip named .xlsx', plainZip(), 'sheet.xlsx'],
    ['an HTML page', Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>'), 'page.txt'],
    ['an SVG image', Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'), 'logo.xml'],
    ['an AVIF image', Buffer.from(''), 'a.heic'],
    ['random binary', Buffer.from([0x00, 0x01, 0x02, 0xfe, 0xff, 0x00, 0x10]), 'blob.bin'],
  ])('refuses %s with 415', async (_what, bytes, name) => {
    const { w, entry } = await entryWithWorld(api);
    const body = bytes.length ? bytes : avif();
    expectErrorBody(await upload(w, entry.id, { bytes: body, name }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(0);
  });

  it.each([
    ['PDF', pdf(), 'application/pdf', 'application/pdf'],
    ['PNG', png(), 'image/png', 'image/png'],
    ['JPEG', jpeg(), 'image/jpeg', 'image/jpeg'],
    ['JPEG declared image/jpg', jpeg(), 'image/jpeg', 'image/jpg'],
    ['WEBP', webp(), 'image/webp', 'image/webp'],
    ['HEIC', heic(), 'image/heic', 'image/heic'],
    ['TIFF', tiff(), 'image/tiff', 'image/tiff'],
    ['GIF', gif(), 'image/gif', 'image/gif'],
    ['CSV', Buffer.from('date,amount\n2026-01-01,10.00\n2026-01-02,12.50\n'), 'text/csv', 'text/csv'],
    ['plain text', Buffer.from('Paid in cash at the front desk.\n'), 'text/plain', 'text/plain'],
    ['XML', Buffer.from('<?xml version="1.0"?><Invoice><Total>10</Total></Invoice>'), 'application/xml', 'application/xml'],
    ['XML declared text/xml', Buffer.from('<Invoice><Total>10</Total></Invoice>'), 'application/xml', 'text/xml'],
    ['XLSX', xlsx(), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', undefined],
    ['DOCX', docx(), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', undefined],
    ['ODS', ods(), 'application/vnd.oasis.opendocument.spreadsheet', undefined],
  ])('accepts %s', async (_what, bytes, stored, declared) => {
    const { w, entry } = await entryWithWorld(api);
    const withType = await upload(w, entry.id, { bytes, name: 'file', type: declared ?? stored });
    expect(withType.status, withType.text).toBe(200);
    expect(withType.body.mimeType).toBe(stored);
  });

  it('accepts the allowed types with no declared type, sniffing each from the bytes', async () => {
    const { w, entry } = await entryWithWorld(api);
    const cases: [Buffer, string][] = [
      [xlsx(), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      [docx(), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      [ods(), 'application/vnd.oasis.opendocument.spreadsheet'],
      [Buffer.from('a;b;c\n1;2;3\n4;5;6\n'), 'text/csv'],
      [Buffer.from('just a note'), 'text/plain'],
      [Buffer.from('\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- export -->\n<Ledger/>'), 'application/xml'],
    ];
    for (const [bytes, mimeType] of cases) {
      const res = await upload(w, entry.id, { bytes, name: 'upload.bin' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.mimeType).toBe(mimeType);
    }
  });

  it('text is CSV when declared so or named .csv, and never when the bytes are not text', async () => {
    const { w, entry } = await entryWithWorld(api);
    expect((await uploaded(w, entry.id, { bytes: Buffer.from('one column\n'), name: 'x.csv' })).mimeType).toBe('text/csv');
    expect((await uploaded(w, entry.id, { bytes: Buffer.from('one column\n'), name: 'x', type: 'text/csv' })).mimeType).toBe('text/csv');
    expect((await uploaded(w, entry.id, { bytes: Buffer.from('a,b\n1,2\n'), name: 'x.txt', type: 'text/plain' })).mimeType).toBe(
      'text/plain',
    );
    expectErrorBody(await upload(w, entry.id, { bytes: png(), name: 'x.csv', type: 'text/csv' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectErrorBody(
      await upload(w, entry.id, { bytes: Buffer.from('plain'), name: 'x.pdf', type: 'application/pdf' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('sniffs the file of a fulfil too', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await requested(w, entry.id);
    expectErrorBody(await fulfil(w, entry.id, doc.id, { bytes: elf(), name: 'scan.png' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectErrorBody(await fulfil(w, entry.id, doc.id, { bytes: png(), type: 'image/jpeg' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const res = await fulfil(w, entry.id, doc.id, { bytes: jpeg(), name: 'scan.png' });
    expect(res.body).toMatchObject({ status: 'UPLOADED', mimeType: 'image/jpeg' });
  });
});

/** An AVIF still image: ISO-BMFF like HEIC, but not on the allow-list. */
function avif() {
  const body = Buffer.from('avif\0\0\0\0mif1miafavif', 'latin1');
  const size = Buffer.alloc(4);
  size.writeUInt32BE(8 + body.length);
  return Buffer.concat([size, Buffer.from('ftyp', 'latin1'), body, Buffer.alloc(16)]);
}

describe('size limit (UPLOAD_LIMIT_BYTES)', () => {
  it('413 above the limit, read per request; exactly the limit is accepted', async () => {
    const { w, entry } = await entryWithWorld(api);
    runtime().config.UPLOAD_LIMIT_BYTES = 2048;
    const over = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2048 - 9 + 1, 0x20)]);
    expect(over.length).toBe(2049);
    expectErrorBody(await upload(w, entry.id, { bytes: over, name: 'big.pdf' }), 413, 'PAYLOAD_TOO_LARGE');
    const exact = over.subarray(0, 2048);
    const ok = await upload(w, entry.id, { bytes: exact, name: 'exact.pdf' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.fileSize).toBe(2048);
    const doc = await requested(w, entry.id);
    expectErrorBody(await fulfil(w, entry.id, doc.id, { bytes: over, name: 'big.pdf' }), 413, 'PAYLOAD_TOO_LARGE');
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(2);
  });

  it('a body far over the limit is refused with 413 too', async () => {
    const { w, entry } = await entryWithWorld(api);
    runtime().config.UPLOAD_LIMIT_BYTES = 64 * 1024;
    const big = Buffer.concat([png(), Buffer.alloc(4 * 1024 * 1024)]);
    expectErrorBody(await upload(w, entry.id, { bytes: big }), 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('names and multipart bodies', () => {
  it.each([
    ['C:\\Users\\me\\Desktop\\scan.png', 'scan.png'],
    ['../../etc/passwd.png', 'passwd.png'],
    ['/var/tmp/receipts/march.png', 'march.png'],
    ['mixed/dirs\\deep/receipt 01.png', 'receipt 01.png'],
    ['Quittung für März.png', 'Quittung für März.png'],
  ])('documentName of %j is %j', async (name, expected) => {
    const { w, entry } = await entryWithWorld(api);
    expect((await uploaded(w, entry.id, { name })).documentName).toBe(expected);
  });

  it('refuses bodies that are not a usable multipart upload', async () => {
    const { w, entry } = await entryWithWorld(api);
    const path = `/entries/${entry.id}/documents/upload`;
    const query = { workspaceId: w.workspaceId };
    expectErrorBody(await api.post(path, { documentType: 'BASIS' }, { token: w.token, query }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectErrorBody(await api.request('POST', path, { token: w.token, query }), 400, 'BAD_REQUEST');
    const noFile = new FormData();
    noFile.append('documentType', 'BASIS');
    expectErrorBody(await api.request('POST', path, { token: w.token, query, rawBody: noFile }), 400, 'BAD_REQUEST');
    expectErrorBody(await upload(w, entry.id, { bytes: png(), documentType: '' }), 400, 'BAD_REQUEST');
    expectErrorBody(await upload(w, entry.id, { bytes: png(), documentType: 'RECEIPT' }), 400, 'BAD_REQUEST');
    expectErrorBody(await upload(w, entry.id, { bytes: png(), fields: { status: 'APPROVED' } }), 400, 'BAD_REQUEST');
    expectErrorBody(await upload(w, entry.id, { bytes: Buffer.alloc(0), name: 'empty.txt' }), 400, 'BAD_REQUEST');
    const twoFiles = new FormData();
    twoFiles.append('documentType', 'BASIS');
    twoFiles.append('file', new Blob([new Uint8Array(png())]), 'a.png');
    twoFiles.append('file', new Blob([new Uint8Array(png(1))]), 'b.png');
    expectErrorBody(await api.request('POST', path, { token: w.token, query, rawBody: twoFiles }), 400, 'BAD_REQUEST');
    const otherField = new FormData();
    otherField.append('documentType', 'BASIS');
    otherField.append('attachment', new Blob([new Uint8Array(png())]), 'a.png');
    expectErrorBody(await api.request('POST', path, { token: w.token, query, rawBody: otherField }), 400, 'BAD_REQUEST');
    const broken = await api.request('POST', path, {
      token: w.token,
      query,
      rawBody: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nunterminated',
      headers: { 'Content-Type': 'multipart/form-data; boundary=x' },
    });
    expectErrorBody(broken, 400, 'BAD_REQUEST');
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(0);
  });
});

describe('download', () => {
  it('round-trips the bytes with the stored type, length, digest and an attachment disposition', async () => {
    const { w, entry } = await entryWithWorld(api);
    const bytes = Buffer.concat([pdf('round trip'), Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256))]);
    const doc = await uploaded(w, entry.id, { bytes, name: 'statement.pdf' });
    const file = await download(api, w.token, entry.id, doc.id);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(bytes)).toBe(true);
    expect(sha256(file.bytes)).toBe(doc.sha256);
    expect(doc.sha256).toBe(sha256(bytes));
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.headers.get('content-length')).toBe(String(bytes.length));
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="statement.pdf"; filename*=UTF-8''statement.pdf`);
    expect(file.headers.get('content-digest')).toBe(`sha-256=:${Buffer.from(doc.sha256, 'hex').toString('base64')}:`);
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('quotes names safely and adds the extension a name lacks', async () => {
    const { w, entry } = await entryWithWorld(api);
    const tricky = await uploaded(w, entry.id, { name: 'a"b\\c; d ü.png' });
    expect(tricky.documentName).toBe('c; d ü.png');
    const header = (await download(api, w.token, entry.id, tricky.id)).headers.get('content-disposition');
    expect(header).toBe(`attachment; filename="c; d _.png"; filename*=UTF-8''c%3B%20d%20%C3%BC.png`);
    const quoted = await uploaded(w, entry.id, { name: 'say "hi".png' });
    expect((await download(api, w.token, entry.id, quoted.id)).headers.get('content-disposition')).toBe(
      `attachment; filename="say _hi_.png"; filename*=UTF-8''say%20%22hi%22.png`,
    );
    const placeholder = await requested(w, entry.id, { documentName: 'Supplier invoice' });
    await fulfil(w, entry.id, placeholder.id, { bytes: pdf() });
    expect((await download(api, w.token, entry.id, placeholder.id)).headers.get('content-disposition')).toBe(
      `attachment; filename="Supplier invoice.pdf"; filename*=UTF-8''Supplier%20invoice.pdf`,
    );
  });

  it('clients that hang up (after the last byte or half way) are not server errors', async () => {
    const { w, entry } = await entryWithWorld(api);
    const bytes = Buffer.concat([pdf(), Buffer.alloc(2 * 1024 * 1024, 0x41)]);
    const doc = await uploaded(w, entry.id, { bytes, name: 'large.pdf' });
    const errors = vi.spyOn(runtime().logger, 'error');
    try {
      const url = `${api.baseUrl}/entries/${entry.id}/documents/${doc.id}/download`;
      for (let i = 0; i < 10; i++) {
        const res = await fetch(url, { headers: { Authorization: `Bearer ${w.token}` } });
        expect(Buffer.from(await res.arrayBuffer()).length).toBe(bytes.length);
      }
      const aborted = new AbortController();
      const res = await fetch(url, { headers: { Authorization: `Bearer ${w.token}` }, signal: aborted.signal });
      await res.body!.getReader().read();
      aborted.abort();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });

  it('a REQUESTED placeholder has no file (409); unknown documents are 404', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await requested(w, entry.id);
    const res = await api.get(`/entries/${entry.id}/documents/${doc.id}/download`, { token: w.token });
    expectErrorBody(res, 409, 'CONFLICT');
    const missing = await api.get(`/entries/${entry.id}/documents/00000000-0000-4000-8000-000000000000/download`, { token: w.token });
    expectErrorBody(missing, 404, 'NOT_FOUND');
    expectErrorBody(await api.get(`/entries/${entry.id}/documents/not-a-uuid/download`, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.get(`/entries/${entry.id}/documents/${doc.id}/download`), 401, 'UNAUTHORIZED');
  });
});

describe('storage on local disk', () => {
  it('is content-addressed under DATA_DIR/documents: the same bytes are stored once', async () => {
    const { w, entry } = await entryWithWorld(api);
    const bytes = png(42);
    const a = await uploaded(w, entry.id, { bytes, name: 'a.png' });
    const b = await uploaded(w, entry.id, { bytes, name: 'b.png' });
    expect(a.sha256).toBe(b.sha256);
    const dir = path.resolve(runtime().config.DATA_DIR, 'documents', a.sha256.slice(0, 2), a.sha256.slice(2, 4));
    expect(readdirSync(dir)).toEqual([a.sha256]);
  });
});
