/**
 * File type sniffing (CONTRACT §6). The allow-list is PDF, PNG, JPEG, WEBP, HEIC, TIFF, GIF,
 * CSV, plain text, XML, XLSX, DOCX and ODS; anything else is refused. The binary formats are
 * recognised by `file-type`; the text ones (which it does not tell apart) by the checks below.
 * The client's declared type is never trusted: it may only agree with the bytes.
 */
import { fileTypeFromBuffer } from 'file-type';

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

/** file-type's names of the allowed binary formats; anything else it recognises (ZIP, executables, AVIF, video…) is refused. */
const BINARY: Readonly<Record<string, AllowedMime>> = {
  'application/pdf': MIME.pdf,
  'image/png': MIME.png,
  'image/jpeg': MIME.jpeg,
  'image/webp': MIME.webp,
  'image/tiff': MIME.tiff,
  'image/gif': MIME.gif,
  [MIME.xlsx]: MIME.xlsx,
  [MIME.docx]: MIME.docx,
  [MIME.ods]: MIME.ods,
  // ISO-BMFF images, named by their major brand only: HEIC when hasHeicBrand agrees
  'image/heic': MIME.heic,
  'image/heic-sequence': MIME.heic,
  'image/heif': MIME.heic,
  'image/heif-sequence': MIME.heic,
};

const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);

/**
 * file-type calls any `mif1`/`msf1` file image/heif, AVIF (AV1 in HEIF) included: it is HEIC when one of
 * the `ftyp` box's brands (major or compatible) is an HEIC brand, and none is an AVIF one.
 */
function hasHeicBrand(b: Uint8Array): boolean {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.length);
  if (buf.length < 16) return false;
  const boxEnd = Math.min(buf.readUInt32BE(0), buf.length);
  const brands = [buf.toString('latin1', 8, 12)];
  for (let at = 16; at + 4 <= boxEnd; at += 4) brands.push(buf.toString('latin1', at, at + 4));
  return !brands.some((brand) => brand === 'avif' || brand === 'avis') && brands.some((brand) => HEIC_BRANDS.has(brand));
}

/** The allowed binary format file-type finds in the bytes (office formats by their zip entries), or null. */
async function sniffBinary(b: Uint8Array): Promise<AllowedMime | null> {
  let found: { mime: string } | undefined;
  try {
    found = await fileTypeFromBuffer(b);
  } catch {
    return null; // unreadable as any format it knows: only the text checks can still accept it
  }
  const mime = found ? BINARY[found.mime] : undefined;
  if (!mime || (mime === MIME.heic && !hasHeicBrand(b))) return null;
  return mime;
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

/**
 * What the bytes are, ignoring anything the client said. null: not an allowed type.
 * Bytes that are clean text are text, whatever signature they start with (file-type takes `GIF…`
 * for a GIF), except a PDF: it may be all ASCII, and then starts with `%PDF-`.
 */
export async function sniffBytes(b: Uint8Array): Promise<Sniffed> {
  const binary = await sniffBinary(b);
  const text = decodeText(b);
  if (binary && (text === null || (binary === MIME.pdf && text.startsWith('%PDF-')))) return { mimeType: binary, isText: false };
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
export async function sniffUpload(
  bytes: Uint8Array,
  hints: { declaredType?: string | null; fileName?: string } = {},
): Promise<SniffOutcome> {
  const sniffed = await sniffBytes(bytes);
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
