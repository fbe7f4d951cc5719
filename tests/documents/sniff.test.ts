import { describe, expect, it } from 'vitest';
import { MIME, normaliseDeclaredType, sniffBytes, sniffUpload, zipEntries } from '../../server/lib/sniff.js';
import { docx, elf, ftyp, gif, heic, jpeg, ods, pdf, pe, plainZip, png, tiff, webp, xlsx, zip } from './helpers.js';

describe('sniffBytes: magic numbers', () => {
  it.each([
    ['PDF', pdf(), MIME.pdf],
    ['PNG', png(), MIME.png],
    ['JPEG', jpeg(), MIME.jpeg],
    ['WEBP', webp(), MIME.webp],
    ['HEIC (major brand)', heic(), MIME.heic],
    ['HEIC (compatible brand)', ftyp('mif1', ['mif1', 'heix']), MIME.heic],
    ['TIFF little-endian', tiff(), MIME.tiff],
    ['TIFF big-endian', Buffer.from([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]), MIME.tiff],
    ['GIF87a', Buffer.from('GIF87a\x01\x00\x01\x00', 'latin1'), MIME.gif],
    ['GIF89a', gif(), MIME.gif],
    ['XLSX', xlsx(), MIME.xlsx],
    ['DOCX', docx(), MIME.docx],
    ['ODS', ods(), MIME.ods],
    ['XML with prolog', Buffer.from('<?xml version="1.0"?>\n<a/>'), MIME.xml],
    ['XML without prolog', Buffer.from('  <ledger><row/></ledger>'), MIME.xml],
    ['CSV', Buffer.from('a,b,c\n1,2,3\n"x, y",5,6\n'), MIME.csv],
    ['semicolon CSV', Buffer.from('a;b\r\n1;2\r\n'), MIME.csv],
    ['text', Buffer.from('Just words, and more words.\nAnother line without the same commas'), MIME.text],
    ['UTF-8 text with BOM', Buffer.from('\uFEFFGrüße\n'), MIME.text],
  ])('%s', (_name, bytes, mime) => {
    expect(sniffBytes(bytes)?.mimeType).toBe(mime);
  });

  it.each([
    ['ELF', elf()],
    ['PE', pe()],
    ['plain zip', plainZip()],
    [
      'zip with [Content_Types].xml but neither xl/ nor word/',
      zip([
        { name: '[Content_Types].xml', data: '<Types/>' },
        { name: 'ppt/p.xml', data: '' },
      ]),
    ],
    ['OpenDocument text (not a spreadsheet)', zip([{ name: 'mimetype', data: 'application/vnd.oasis.opendocument.text' }])],
    ['truncated zip', xlsx().subarray(0, 40)],
    ['MP4 video', ftyp('isom', ['isom', 'mp41'])],
    ['AVIF', ftyp('avif', ['mif1', 'avif'])],
    ['HTML', Buffer.from('<html><body>hi</body></html>')],
    ['HTML doctype', Buffer.from('<!doctype html>\n<title>x</title>')],
    ['an HTML fragment', Buffer.from('<a href="https://example.test">click</a>')],
    ['SVG', Buffer.from('<?xml version="1.0"?>\n<!-- logo -->\n<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['latin-1 bytes (not UTF-8)', Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65])],
    ['control characters', Buffer.from('abc\x00def')],
    ['UTF-16 text', Buffer.from('\ufeffhello', 'utf16le')],
    ['gzip', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0])],
    ['a PDF header after other bytes', Buffer.concat([Buffer.from([0x00, 0x01]), pdf()])],
  ])('refuses %s', (_name, bytes) => {
    expect(sniffBytes(bytes)).toBeNull();
  });

  it('reads zip central directories (names, stored offsets)', () => {
    expect(zipEntries(xlsx())?.map((e) => e.name)).toEqual(['[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml']);
    expect(zipEntries(png())).toBeNull();
  });
});

describe('sniffUpload: declared types', () => {
  it('treats absent and application/octet-stream as "not declared", and ignores parameters and case', () => {
    expect(normaliseDeclaredType(undefined)).toBeNull();
    expect(normaliseDeclaredType('application/octet-stream')).toBeNull();
    expect(normaliseDeclaredType('Text/Plain; charset=UTF-8')).toBe('text/plain');
    expect(sniffUpload(png(), { declaredType: 'application/octet-stream' })).toEqual({ ok: true, mimeType: MIME.png });
    expect(sniffUpload(png(), { declaredType: 'IMAGE/PNG' })).toEqual({ ok: true, mimeType: MIME.png });
  });

  it('refuses a declared type that differs from the bytes', () => {
    expect(sniffUpload(png(), { declaredType: 'application/pdf' })).toEqual({
      ok: false,
      reason: 'MISMATCH',
      sniffed: MIME.png,
      declared: 'application/pdf',
    });
    expect(sniffUpload(Buffer.from('<ledger/>'), { declaredType: 'text/plain' })).toMatchObject({ ok: false, reason: 'MISMATCH' });
    expect(sniffUpload(xlsx(), { declaredType: 'application/zip' })).toMatchObject({ ok: false, reason: 'MISMATCH' });
    expect(sniffUpload(elf(), { declaredType: 'application/pdf' })).toEqual({ ok: false, reason: 'UNSUPPORTED' });
  });

  it('accepts the usual aliases of a type', () => {
    expect(sniffUpload(jpeg(), { declaredType: 'image/pjpeg' })).toEqual({ ok: true, mimeType: MIME.jpeg });
    expect(sniffUpload(heic(), { declaredType: 'image/heif' })).toEqual({ ok: true, mimeType: MIME.heic });
    expect(sniffUpload(Buffer.from('<ledger/>'), { declaredType: 'text/xml' })).toEqual({ ok: true, mimeType: MIME.xml });
    expect(sniffUpload(Buffer.from('a\nb'), { declaredType: 'application/vnd.ms-excel' })).toEqual({ ok: true, mimeType: MIME.csv });
  });

  it('lets only the declared type or a .csv name choose between text and CSV', () => {
    const csvLooking = Buffer.from('a,b\n1,2\n');
    expect(sniffUpload(csvLooking)).toEqual({ ok: true, mimeType: MIME.csv });
    expect(sniffUpload(csvLooking, { declaredType: 'text/plain' })).toEqual({ ok: true, mimeType: MIME.text });
    expect(sniffUpload(Buffer.from('single'), { fileName: 'list.CSV' })).toEqual({ ok: true, mimeType: MIME.csv });
    expect(sniffUpload(Buffer.from('single'), { fileName: 'list.txt' })).toEqual({ ok: true, mimeType: MIME.text });
    expect(sniffUpload(Buffer.from('<ledger/>'), { fileName: 'export.csv' })).toEqual({ ok: true, mimeType: MIME.xml });
  });
});

describe('sniffBytes: markup edge cases', () => {
  it('an unterminated prolog or comment is not XML (plain text)', () => {
    expect(sniffBytes(Buffer.from('<?xml version="1.0"'))?.mimeType).toBe(MIME.text);
    expect(sniffBytes(Buffer.from('<!-- never closed <Ledger/>'))?.mimeType).toBe(MIME.text);
  });

  it('a doctype is skipped; an HTML doctype makes it HTML whatever the root', () => {
    expect(sniffBytes(Buffer.from('<!DOCTYPE ledger SYSTEM "l.dtd">\n<ledger/>'))?.mimeType).toBe(MIME.xml);
    expect(sniffBytes(Buffer.from('<!DOCTYPE html><ledger/>'))).toBeNull();
    expect(sniffBytes(Buffer.from('<?xml version="1.0"?><!DOCTYPE html><x/>'))).toBeNull();
  });

  it('text that merely starts with "<" is text', () => {
    expect(sniffBytes(Buffer.from('<3 thanks for lunch'))?.mimeType).toBe(MIME.text);
  });
});
