import type { StatementFormat } from '../../../../shared/contracts/banking.js';
import type { ImportIssue } from './types.js';
import { quotedValue } from '../../../lib/errors.js';

/** The text encodings of statement files (CONTRACT §14). */
export type TextEncoding = 'utf-8' | 'utf-16' | 'iso-8859-1' | 'windows-1252';
export type Decoded = { text: string } | { issue: ImportIssue };

/** Bytes ISO-8859-1 leaves undefined (C1 controls; in a real file they are windows-1252 text sent under the wrong name). */
const LATIN1_UNDEFINED = (b: number) => b >= 0x80 && b <= 0x9f;
/** windows-1252 at 0x80–0x9F (Node's TextDecoder reads this label as Latin-1); `undefined`: the five bytes it leaves undefined. */
const CP1252_HIGH = [
  0x20ac,
  undefined,
  0x201a,
  0x0192,
  0x201e,
  0x2026,
  0x2020,
  0x2021,
  0x02c6,
  0x2030,
  0x0160,
  0x2039,
  0x0152,
  undefined,
  0x017d,
  undefined,
  undefined,
  0x2018,
  0x2019,
  0x201c,
  0x201d,
  0x2022,
  0x2013,
  0x2014,
  0x02dc,
  0x2122,
  0x0161,
  0x203a,
  0x0153,
  undefined,
  0x017e,
  0x0178,
];
const CP1252_UNDEFINED = (b: number) => b >= 0x80 && b <= 0x9f && CP1252_HIGH[b - 0x80] === undefined;

const lineOfOffset = (bytes: Uint8Array, offset: number): number => {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return line;
};

const utf16Bom = (b: Uint8Array): 'utf-16le' | 'utf-16be' | null =>
  b[0] === 0xff && b[1] === 0xfe ? 'utf-16le' : b[0] === 0xfe && b[1] === 0xff ? 'utf-16be' : null;
const utf8Bom = (b: Uint8Array) => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;

function decodeUtf8(bytes: Uint8Array): Decoded {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    // find the line: bytes of one line are decoded alone (0x0A never occurs inside a UTF-8 sequence)
    const strict = new TextDecoder('utf-8', { fatal: true });
    let start = 0;
    for (let line = 1; start <= bytes.length; line++) {
      const end = bytes.indexOf(0x0a, start);
      const stop = end < 0 ? bytes.length : end;
      try {
        strict.decode(bytes.subarray(start, stop));
      } catch {
        return { issue: { line, message: 'Bytes that are not valid UTF-8: give the file’s encoding (iso-8859-1, windows-1252, utf-16)' } };
      }
      start = stop + 1;
    }
    return { issue: { line: 1, message: 'Bytes that are not valid UTF-8' } };
  }
}

function decodeUtf16(bytes: Uint8Array): Decoded {
  const label = utf16Bom(bytes);
  if (!label) return { issue: { line: 1, message: 'A UTF-16 file must start with a byte-order mark' } };
  try {
    return { text: new TextDecoder(label, { fatal: true }).decode(bytes) };
  } catch {
    const loose = new TextDecoder(label).decode(bytes);
    const bad = loose.indexOf('\uFFFD');
    const line = bad < 0 ? 1 : loose.slice(0, bad).split('\n').length;
    return { issue: { line, message: 'Bytes that are not valid UTF-16' } };
  }
}

function decodeSingleByte(bytes: Uint8Array, encoding: 'iso-8859-1' | 'windows-1252'): Decoded {
  const undefinedByte = encoding === 'iso-8859-1' ? LATIN1_UNDEFINED : CP1252_UNDEFINED;
  const bad = bytes.findIndex(undefinedByte);
  if (bad >= 0) {
    const hex = bytes[bad].toString(16).toUpperCase().padStart(2, '0');
    return { issue: { line: lineOfOffset(bytes, bad), message: `Byte 0x${hex} is not a character of ${encoding.toUpperCase()}` } };
  }
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (encoding === 'iso-8859-1') return { text: latin1 };
  return { text: latin1.replace(/[\u0080-\u009f]/g, (c) => String.fromCharCode(CP1252_HIGH[c.charCodeAt(0) - 0x80]!)) };
}

/** Bytes → text in `encoding`; a byte the encoding does not define is an issue with its line, never a replacement character. */
export function decodeText(bytes: Uint8Array, encoding: TextEncoding): Decoded {
  if (encoding === 'utf-16') return decodeUtf16(bytes);
  if (encoding === 'utf-8') return decodeUtf8(bytes);
  return decodeSingleByte(bytes, encoding);
}

const ENCODING_NAMES: Record<string, TextEncoding> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'us-ascii': 'utf-8',
  usascii: 'utf-8',
  ascii: 'utf-8',
  'utf-16': 'utf-16',
  'iso-8859-1': 'iso-8859-1',
  'iso8859-1': 'iso-8859-1',
  '8859-1': 'iso-8859-1',
  latin1: 'iso-8859-1',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  '1252': 'windows-1252',
};

/**
 * The encoding a statement file declares: a byte-order mark first, then the XML declaration's
 * `encoding` (camt.053, OFX 2.x) or the OFX 1.x header's CHARSET/ENCODING; UTF-8 when it declares none.
 */
export function declaredEncoding(bytes: Uint8Array, format: StatementFormat): TextEncoding | { issue: ImportIssue } {
  if (utf16Bom(bytes)) return 'utf-16';
  if (utf8Bom(bytes)) return 'utf-8';
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  const xml = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(head)?.[1];
  const ofx = format === 'OFX' ? ofxHeaderCharset(head) : undefined;
  const name = xml ?? ofx;
  if (name === undefined) return 'utf-8';
  const known = ENCODING_NAMES[name.trim().toLowerCase()];
  return (
    known ?? {
      issue: {
        line: 1,
        message: `The file declares the encoding ${quotedValue(name.slice(0, 40))}, which is not supported (UTF-8, UTF-16, ISO-8859-1)`,
      },
    }
  );
}

/** OFX 1.x headers: `ENCODING:UTF-8`, or `ENCODING:USASCII` with `CHARSET:1252` / `CHARSET:8859-1` (NONE: ASCII). */
function ofxHeaderCharset(head: string): string | undefined {
  const encoding = /^\s*ENCODING\s*:\s*(\S+)/im.exec(head)?.[1];
  const charset = /^\s*CHARSET\s*:\s*(\S+)/im.exec(head)?.[1];
  if (encoding && /^utf-?8$/i.test(encoding)) return 'utf-8';
  if (charset && !/^none$/i.test(charset)) return charset;
  return encoding;
}

/** The first bytes as text, for detecting the format (ASCII markers read alike in UTF-8, Latin-1 and windows-1252). */
export function sniffText(bytes: Uint8Array): string {
  const head = bytes.subarray(0, 8192);
  const label = utf16Bom(head);
  return label ? new TextDecoder(label).decode(head) : Buffer.from(head).toString('latin1');
}
