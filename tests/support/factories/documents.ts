import { crc32 } from 'node:zlib';
import { expect } from 'vitest';
import { makePng } from '../../../server/seed/demo-files.js';
import { ubl, type EInvoice, type Party } from '../../documents/corpus/einvoice-writers.js';
import type { Api, ApiResponse } from '../http.js';
import { createEntry, entryWorld, type EntryWorld } from './entries.js';

/* ---------- files ---------- */

/** A tiny valid PNG; `seed` varies the pixels so each call can give different content. */
export const png = (seed = 0) => makePng(4, 4, (x, y) => [(x * 40 + seed) % 256, (y * 40 + seed * 7) % 256, (seed * 13) % 256]);

export const pdf = (text = 'receipt') =>
  Buffer.from(`%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n% ${text}\ntrailer << /Root 1 0 R >>\n%%EOF\n`, 'latin1');

export const jpeg = () => Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0xff, 0xd9]);
export const gif = () => Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x3b])]);
export const webp = () =>
  Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.from([26, 0, 0, 0]), Buffer.from('WEBPVP8 ', 'latin1'), Buffer.alloc(18)]);
export const tiff = () => Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]);
/** An ISO-BMFF `ftyp` box with the given major and compatible brands. */
export const ftyp = (major: string, compatible: string[]) => {
  const body = Buffer.from(major + '\0\0\0\0' + compatible.join(''), 'latin1');
  const size = Buffer.alloc(4);
  size.writeUInt32BE(8 + body.length);
  return Buffer.concat([size, Buffer.from('ftyp', 'latin1'), body, Buffer.alloc(16)]);
};
export const heic = () => ftyp('heic', ['mif1', 'heic']);

/** The start of a 64-bit Linux executable (ELF). */
export const elf = () =>
  Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(56), Buffer.from('code')]);
/** The start of a Windows executable (MZ stub and PE header). */
export const pe = () => {
  const b = Buffer.alloc(256);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(0x80, 0x3c);
  b.write('PE\0\0', 0x80, 'latin1');
  b.write('This program cannot be run in DOS mode.', 0x4e, 'latin1');
  return b;
};

/** A zip archive of stored (uncompressed) entries, written by hand (no zip library needed). */
export function zip(entries: { name: string; data: string | Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data, 'utf8');
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** An OOXML package's `[Content_Types].xml`, naming its main part's type (what Excel and Word write, and file-type reads). */
const contentTypes = (part: string, type: string) =>
  '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  `<Override PartName="${part}" ContentType="application/vnd.openxmlformats-officedocument.${type}.main+xml"/></Types>`;
export const xlsx = () =>
  zip([
    { name: '[Content_Types].xml', data: contentTypes('/xl/workbook.xml', 'spreadsheetml.sheet') },
    { name: '_rels/.rels', data: '<Relationships/>' },
    { name: 'xl/workbook.xml', data: '<workbook/>' },
  ]);
export const docx = () =>
  zip([
    { name: '[Content_Types].xml', data: contentTypes('/word/document.xml', 'wordprocessingml.document') },
    { name: 'word/document.xml', data: '<document/>' },
  ]);
export const ods = () =>
  zip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.spreadsheet' },
    { name: 'content.xml', data: '<office:document-content/>' },
  ]);
export const plainZip = () => zip([{ name: 'notes.txt', data: 'hello' }]);

export type UploadOptions = {
  bytes: Buffer;
  name?: string;
  /** the part's declared Content-Type; undefined sends application/octet-stream (what a Blob without type gets) */
  type?: string;
  documentType?: string;
  workspaceId?: number | null;
  token?: string;
  fields?: Record<string, string>;
};

export function form(opts: UploadOptions, withDocumentType = true): FormData {
  const fd = new FormData();
  if (withDocumentType && opts.documentType !== '') fd.append('documentType', opts.documentType ?? 'BASIS');
  for (const [k, v] of Object.entries(opts.fields ?? {})) fd.append(k, v);
  fd.append('file', new Blob([new Uint8Array(opts.bytes)], opts.type ? { type: opts.type } : {}), opts.name ?? 'file.png');
  return fd;
}

/** POST /entries/{id}/documents/upload?workspaceId= (multipart). */
export function upload(w: EntryWorld, entryId: number, opts: UploadOptions): Promise<ApiResponse> {
  const query = opts.workspaceId === null ? {} : { workspaceId: opts.workspaceId ?? w.workspaceId };
  return w.api.request('POST', `/entries/${entryId}/documents/upload`, { token: opts.token ?? w.token, query, rawBody: form(opts) });
}

/** An upload that must succeed; returns the document. */
export async function uploaded(w: EntryWorld, entryId: number, opts: Partial<UploadOptions> = {}): Promise<any> {
  const res = await upload(w, entryId, { bytes: png(), ...opts });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

export async function requested(w: EntryWorld, entryId: number, body: Record<string, unknown> = {}): Promise<any> {
  const res = await w.api.post(
    `/entries/${entryId}/documents/request`,
    { documentName: 'Invoice', documentType: 'BASIS', ...body },
    { token: w.token },
  );
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** A workspace with an entry, and the world around it. */
export async function entryWithWorld(api: Api, overrides: Record<string, unknown> = {}) {
  const w = await entryWorld(api);
  const entry = await createEntry(w, overrides);
  return { w, entry };
}

/* ---------- the inbox (CONTRACT §21) ---------- */

/** POST /inbox/documents (multipart `workspaceId`, `file`). */
export function inboxUpload(
  api: Api,
  token: string,
  workspaceId: number | string | null,
  bytes: Buffer,
  name = 'invoice.xml',
  type?: string,
): Promise<ApiResponse> {
  const fd = new FormData();
  if (workspaceId !== null) fd.append('workspaceId', String(workspaceId));
  fd.append('file', new Blob([new Uint8Array(bytes)], type ? { type } : {}), name);
  return api.request('POST', '/inbox/documents', { token, rawBody: fd });
}

export async function inboxed(api: Api, token: string, workspaceId: number, bytes: Buffer, name = 'invoice.xml'): Promise<any> {
  const res = await inboxUpload(api, token, workspaceId, bytes, name);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const seller: Party = { name: 'Hansen Bürobedarf GmbH', vatId: 'DE811111111', country: 'DE' };
const buyer: Party = { name: 'Our Company Ltd', vatId: 'GB999999973', country: 'GB' };

/** A UBL invoice of `totalCents` (net + 19 % tax) from `sellerName`. */
export function invoiceXml(o: {
  number: string;
  issueDate: string;
  totalCents: number;
  currency?: string;
  sellerName?: string;
  sellerVat?: string;
  credit?: boolean;
}): Buffer {
  const dec = (c: number) => `${Math.trunc(c / 100)}.${String(c % 100).padStart(2, '0')}`;
  const tax = Math.round((o.totalCents * 19) / 119);
  const inv: EInvoice = {
    number: o.number,
    credit: o.credit,
    issueDate: o.issueDate,
    currency: o.currency ?? 'USD',
    seller: { ...seller, name: o.sellerName ?? seller.name, vatId: o.sellerVat ?? seller.vatId },
    buyer,
    lines: [{ name: 'Goods', quantity: '1', price: dec(o.totalCents - tax), net: dec(o.totalCents - tax), vatRate: '19' }],
    net: dec(o.totalCents - tax),
    tax: dec(tax),
    total: dec(o.totalCents),
    payable: dec(o.totalCents),
  };
  return Buffer.from(ubl(inv), 'utf8');
}
