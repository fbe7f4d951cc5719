import { describe, expect, it } from 'vitest';
import { MIME, normaliseDeclaredType, sniffBytes, sniffUpload } from '../../server/lib/sniff.js';
import { docx, elf, ftyp, gif, heic, jpeg, ods, pdf, pe, plainZip, png, tiff, webp, xlsx, zip } from '../support/factories/index.js';

describe('sniffBytes: magic numbers', () => {
  it.each([
    ['PDF', pdf(), MIME.pdf],
    ['PNG', png(), MIME.png],
    ['JPEG', jpeg(), MIME.jpeg],
    ['WEBP', webp(), MIME.webp],
    ['HEIC (major brand)', heic(), MIME.heic],
    ['HEIC (compatible brand)', ftyp('mif1', ['mif1', 'heix']), MIME.heic],
    ['TIFF little-endian', tiff(), MIME.tiff],
    ['TIFF big-endian', Buffer.from([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8, 0, 0]), MIME.tiff],
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
    ['text with a PDF header further on', Buffer.from('Scanner log\n%PDF-1.4 written to receipt.pdf\n'), MIME.text],
    ['text starting with "%PDF" (no header)', Buffer.from('%PDF files go to accounting.\n'), MIME.text],
    ['text starting with "GIF"', Buffer.from('GIF89a is the format of the old logo.\n'), MIME.text],
    ['text with a zip signature in words', Buffer.from('PK is the zip signature; so is 50 4B 03 04.\n'), MIME.text],
  ])('%s', async (_name, bytes, mime) => {
    expect((await sniffBytes(bytes))?.mimeType).toBe(mime);
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
    ['AVIF with the mif1 major brand', ftyp('mif1', ['mif1', 'avif'])],
    ['HEIF without an HEIC brand', ftyp('mif1', ['mif1', 'miaf'])],
    [
      'PPTX',
      zip([
        {
          name: '[Content_Types].xml',
          data: '<Types><Override ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>',
        },
        { name: 'ppt/presentation.xml', data: '<p/>' },
      ]),
    ],
    ['a Java archive', zip([{ name: 'META-INF/MANIFEST.MF', data: 'Manifest-Version: 1.0\n' }])],
  ])('refuses %s', async (_name, bytes) => {
    expect(await sniffBytes(bytes)).toBeNull();
  });
});

describe('sniffUpload: declared types', () => {
  it('treats absent and application/octet-stream as "not declared", and ignores parameters and case', async () => {
    expect(normaliseDeclaredType(undefined)).toBeNull();
    expect(normaliseDeclaredType('application/octet-stream')).toBeNull();
    expect(normaliseDeclaredType('Text/Plain; charset=UTF-8')).toBe('text/plain');
    expect(await sniffUpload(png(), { declaredType: 'application/octet-stream' })).toEqual({ ok: true, mimeType: MIME.png });
    expect(await sniffUpload(png(), { declaredType: 'IMAGE/PNG' })).toEqual({ ok: true, mimeType: MIME.png });
  });

  it('refuses a declared type that differs from the bytes', async () => {
    expect(await sniffUpload(png(), { declaredType: 'application/pdf' })).toEqual({
      ok: false,
      reason: 'MISMATCH',
      sniffed: MIME.png,
      declared: 'application/pdf',
    });
    expect(await sniffUpload(Buffer.from('<ledger/>'), { declaredType: 'text/plain' })).toMatchObject({ ok: false, reason: 'MISMATCH' });
    expect(await sniffUpload(xlsx(), { declaredType: 'application/zip' })).toMatchObject({ ok: false, reason: 'MISMATCH' });
    expect(await sniffUpload(elf(), { declaredType: 'application/pdf' })).toEqual({ ok: false, reason: 'UNSUPPORTED' });
  });

  it('accepts the usual aliases of a type', async () => {
    expect(await sniffUpload(jpeg(), { declaredType: 'image/pjpeg' })).toEqual({ ok: true, mimeType: MIME.jpeg });
    expect(await sniffUpload(heic(), { declaredType: 'image/heif' })).toEqual({ ok: true, mimeType: MIME.heic });
    expect(await sniffUpload(Buffer.from('<ledger/>'), { declaredType: 'text/xml' })).toEqual({ ok: true, mimeType: MIME.xml });
    expect(await sniffUpload(Buffer.from('a\nb'), { declaredType: 'application/vnd.ms-excel' })).toEqual({ ok: true, mimeType: MIME.csv });
  });

  it('lets only the declared type or a .csv name choose between text and CSV', async () => {
    const csvLooking = Buffer.from('a,b\n1,2\n');
    expect(await sniffUpload(csvLooking)).toEqual({ ok: true, mimeType: MIME.csv });
    expect(await sniffUpload(csvLooking, { declaredType: 'text/plain' })).toEqual({ ok: true, mimeType: MIME.text });
    expect(await sniffUpload(Buffer.from('single'), { fileName: 'list.CSV' })).toEqual({ ok: true, mimeType: MIME.csv });
    expect(await sniffUpload(Buffer.from('single'), { fileName: 'list.txt' })).toEqual({ ok: true, mimeType: MIME.text });
    expect(await sniffUpload(Buffer.from('<ledger/>'), { fileName: 'export.csv' })).toEqual({ ok: true, mimeType: MIME.xml });
  });
});

describe('sniffBytes: markup edge cases', () => {
  it('an unterminated prolog or comment is not XML (plain text)', async () => {
    expect((await sniffBytes(Buffer.from('<?xml version="1.0"')))?.mimeType).toBe(MIME.text);
    expect((await sniffBytes(Buffer.from('<!-- never closed <Ledger/>')))?.mimeType).toBe(MIME.text);
  });

  it('a doctype is skipped; an HTML doctype makes it HTML whatever the root', async () => {
    expect((await sniffBytes(Buffer.from('<!DOCTYPE ledger SYSTEM "l.dtd">\n<ledger/>')))?.mimeType).toBe(MIME.xml);
    expect(await sniffBytes(Buffer.from('<!DOCTYPE html><ledger/>'))).toBeNull();
    expect(await sniffBytes(Buffer.from('<?xml version="1.0"?><!DOCTYPE html><x/>'))).toBeNull();
  });

  it('text that merely starts with "<" is text', async () => {
    expect((await sniffBytes(Buffer.from('<3 thanks for lunch')))?.mimeType).toBe(MIME.text);
  });
});
