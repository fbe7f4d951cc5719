/**
 * File type sniffing from magic numbers (CONTRACT §6). The allow-list is PDF, PNG, JPEG,
 * WEBP, HEIC, TIFF, GIF, CSV, plain text, XML, XLSX, DOCX and ODS; anything else is refused.
 * The client's declared type is never trusted: it may only agree with the bytes.
 */

export const MIME = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  heic: 'image/heic',
  tiff: 'image/tiff',
  gif: 'image/gif',
  csv: 'text/csv',
  text: 'text/plain',
  xml: 'application/xml',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
} as const;

export type AllowedMime = (typeof MIME)[keyof typeof MIME];

/** Other names clients use for the same types (a declared alias agrees with the sniffed type). */
const ALIASES: Record<string, AllowedMime> = {
  'application/x-pdf': MIME.pdf,
  'image/x-png': MIME.png,
  'image/jpg': MIME.jpeg,
  'image/pjpeg': MIME.jpeg,
  'image/heif': MIME.heic,
  'image/x-tiff': MIME.tiff,
  'text/xml': MIME.xml,
  'application/csv': MIME.csv,
  'text/comma-separated-values': MIME.csv,
  'text/x-csv': MIME.csv,
  // what Windows browsers declare for a .csv file; accepted only when the bytes are text
  'application/vnd.ms-excel': MIME.csv,
};

const TEXT_TYPES: ReadonlySet<string> = new Set([MIME.text, MIME.csv]);

const startsWith = (b: Uint8Array, sig: number[], at = 0) => b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);
const ascii = (b: Uint8Array, from: number, to: number) =>
  Buffer.from(b.buffer, b.byteOffset + from, Math.max(0, to - from)).toString('latin1');

const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);

/** ISO base media file with an HEIC brand (major or compatible); AVIF and video containers are not HEIC. */
function isHeic(b: Uint8Array): boolean {
  if (b.length < 16 || ascii(b, 4, 8) !== 'ftyp') return false;
  const boxSize = Math.min(Buffer.from(b.buffer, b.byteOffset, b.length).readUInt32BE(0), b.length);
  const brands = [ascii(b, 8, 12)];
  for (let at = 16; at + 4 <= boxSize; at += 4) brands.push(ascii(b, at, at + 4));
  if (brands.some((brand) => brand === 'avif' || brand === 'avis')) return false;
  return brands.some((brand) => HEIC_BRANDS.has(brand));
}

/** Binary formats recognised by their leading bytes. */
function sniffBinary(b: Uint8Array): AllowedMime | null {
  if (startsWith(b, [0x25, 0x50, 0x44, 0x46, 0x2d])) return MIME.pdf; // %PDF-
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return MIME.png;
  if (startsWith(b, [0xff, 0xd8, 0xff])) return MIME.jpeg;
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return MIME.webp;
  if (isHeic(b)) return MIME.heic;
  if (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) return MIME.tiff;
  if (startsWith(b, [0x49, 0x49, 0x2b, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2b])) return MIME.tiff; // BigTIFF
  const gif = ascii(b, 0, 6);
  if (gif === 'GIF87a' || gif === 'GIF89a') return MIME.gif;
  return null;
}

type ZipEntry = { name: string; method: number; compressedSize: number; localOffset: number };

/** Names (and where to find them) of a zip's central directory; null when it is not a readable zip. */
export function zipEntries(b: Uint8Array, maxEntries = 10_000): ZipEntry[] | null {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.length);
  if (buf.length < 22 || buf.readUInt32LE(0) !== 0x04034b50) return null;
  let eocd = -1;
  for (let at = buf.length - 22; at >= Math.max(0, buf.length - 22 - 0xffff); at--) {
    if (buf.readUInt32LE(at) === 0x06054b50) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) return null;
  const count = buf.readUInt16LE(eocd + 10);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (count > maxEntries || cdOffset >= buf.length) return null;
  const entries: ZipEntry[] = [];
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > buf.length || buf.readUInt32LE(at) !== 0x02014b50) return null;
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    if (at + 46 + nameLength > buf.length) return null;
    entries.push({
      name: buf.toString('utf8', at + 46, at + 46 + nameLength),
      method: buf.readUInt16LE(at + 10),
      compressedSize: buf.readUInt32LE(at + 20),
      localOffset: buf.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The bytes of a stored (uncompressed) zip entry, or null. */
function storedEntryContent(b: Uint8Array, entry: ZipEntry): string | null {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.length);
  const at = entry.localOffset;
  if (entry.method !== 0 || at + 30 > buf.length || buf.readUInt32LE(at) !== 0x04034b50) return null;
  const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  const end = start + entry.compressedSize;
  return end <= buf.length ? buf.toString('latin1', start, end) : null;
}

/** XLSX, DOCX and ODS are zip containers told apart by their entries; any other zip is refused. */
function sniffOfficeZip(b: Uint8Array): AllowedMime | null {
  const entries = zipEntries(b);
  if (!entries) return null;
  const names = new Set(entries.map((e) => e.name));
  if (names.has('[Content_Types].xml')) {
    if (entries.some((e) => e.name.startsWith('xl/'))) return MIME.xlsx;
    if (entries.some((e) => e.name.startsWith('word/'))) return MIME.docx;
    return null;
  }
  const mimetype = entries.find((e) => e.name === 'mimetype');
  if (mimetype && storedEntryContent(b, mimetype)?.trim() === MIME.ods) return MIME.ods;
  return null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text without control characters other than tab, line feed, form feed and carriage return. */
function decodeText(b: Uint8Array): string | null {
  let text: string;
  try {
    text = utf8.decode(b);
  } catch {
    return null;
  }
  // eslint-disable-next-line no-control-regex
  return /[\x00-\x08\x0b\x0e-\x1f\x7f]/.test(text) ? null : text.replace(/^\uFEFF/, '');
}

/** Roots that make markup HTML or SVG (not on the allow-list): with an XML prolog only these two… */
const NOT_XML_ROOTS = new Set(['html', 'svg']);
/** …without one, also the tags browsers sniff as HTML. */
const HTML_TAGS = new Set(['head', 'body', 'script', 'iframe', 'style', 'title', 'div', 'table', 'a', 'p', 'b', 'br', 'font', 'h1']);

/** The name of the first element of markup text, skipping a prolog, comments and a doctype. */
function rootElement(text: string): { name: string; doctype: string | null } | null {
  let rest = text.trimStart();
  let doctype: string | null = null;
  const after = (marker: string) => {
    const at = rest.indexOf(marker);
    return at < 0 ? '' : rest.slice(at + marker.length).trimStart();
  };
  for (;;) {
    if (rest.startsWith('<?')) rest = after('?>');
    else if (rest.startsWith('<!--')) rest = after('-->');
    else if (/^<!doctype/i.test(rest)) {
      doctype = rest.slice(9).trim().split(/[\s>]/)[0].toLowerCase();
      rest = after('>');
    } else break;
    if (!rest) return null;
  }
  const match = /^<([A-Za-z_][\w.:-]*)[\s/>]/.exec(rest);
  return match ? { name: match[1].toLowerCase().replace(/^.*:/, ''), doctype } : null;
}

/** Comma, semicolon or tab separated rows with the same number (>= 2) of fields on each line. */
function looksLikeCsv(text: string): boolean {
  const lines = text.slice(0, 64 * 1024).split(/\r?\n/);
  if (text.length > 64 * 1024) lines.pop(); // maybe cut in the middle
  const rows = lines.filter((l) => l.trim() !== '').slice(0, 50);
  if (rows.length < 2) return false;
  return [',', ';', '\t'].some((sep) => {
    const counts = rows.map((row) => row.replace(/"(?:[^"]|"")*"/g, '').split(sep).length);
    return counts[0] >= 2 && counts.every((c) => c === counts[0]);
  });
}

export type Sniffed = { mimeType: AllowedMime; isText: boolean } | null;

/** What the bytes are, ignoring anything the client said. null: not an allowed type. */
export function sniffBytes(b: Uint8Array): Sniffed {
  const binary = sniffBinary(b);
  if (binary) return { mimeType: binary, isText: false };
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04])) {
    const office = sniffOfficeZip(b);
    return office ? { mimeType: office, isText: false } : null;
  }
  const text = decodeText(b);
  if (text === null) return null;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('<')) {
    const root = rootElement(trimmed);
    const prolog = trimmed.startsWith('<?xml');
    if (root && (NOT_XML_ROOTS.has(root.name) || root.doctype === 'html' || (!prolog && HTML_TAGS.has(root.name)))) return null;
    if (root) return { mimeType: MIME.xml, isText: true };
  }
  return { mimeType: looksLikeCsv(text) ? MIME.csv : MIME.text, isText: true };
}

/** `Type/Sub; charset=x` → `type/sub`; absent and application/octet-stream mean "not declared". */
export function normaliseDeclaredType(declared: string | undefined | null): string | null {
  const base = (declared ?? '').split(';')[0].trim().toLowerCase();
  return base === '' || base === 'application/octet-stream' ? null : base;
}

export type SniffOutcome =
  | { ok: true; mimeType: AllowedMime }
  | { ok: false; reason: 'UNSUPPORTED' }
  | { ok: false; reason: 'MISMATCH'; sniffed: AllowedMime; declared: string };

/**
 * The stored type of an upload: the sniffed one. A declared type must agree with it.
 * Plain text and CSV have no magic number, so between those two (and only when the
 * bytes are text) the declared type or a `.csv` name decides, else the content does.
 */
export function sniffUpload(bytes: Uint8Array, hints: { declaredType?: string | null; fileName?: string } = {}): SniffOutcome {
  const sniffed = sniffBytes(bytes);
  if (!sniffed) return { ok: false, reason: 'UNSUPPORTED' };
  const declaredRaw = normaliseDeclaredType(hints.declaredType);
  const declared = declaredRaw ? (ALIASES[declaredRaw] ?? declaredRaw) : null;
  if (sniffed.isText && sniffed.mimeType !== MIME.xml) {
    if (declared && TEXT_TYPES.has(declared)) return { ok: true, mimeType: declared as AllowedMime };
    if (!declared && /\.csv$/i.test(hints.fileName ?? '')) return { ok: true, mimeType: MIME.csv };
  }
  if (declared && declared !== sniffed.mimeType)
    return { ok: false, reason: 'MISMATCH', sniffed: sniffed.mimeType, declared: declaredRaw! };
  return { ok: true, mimeType: sniffed.mimeType };
}

/** The usual file extension of an allowed type (for download names that lack one). */
export const EXTENSION: Record<AllowedMime, string> = {
  [MIME.pdf]: 'pdf',
  [MIME.png]: 'png',
  [MIME.jpeg]: 'jpg',
  [MIME.webp]: 'webp',
  [MIME.heic]: 'heic',
  [MIME.tiff]: 'tiff',
  [MIME.gif]: 'gif',
  [MIME.csv]: 'csv',
  [MIME.text]: 'txt',
  [MIME.xml]: 'xml',
  [MIME.xlsx]: 'xlsx',
  [MIME.docx]: 'docx',
  [MIME.ods]: 'ods',
};
