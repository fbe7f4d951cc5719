import { XMLParser } from 'fast-xml-parser';

/**
 * XML of e-invoices through fast-xml-parser with entity expansion off (no DOCTYPE is accepted at
 * all: e-invoices never carry one, and it is where entity bombs and external entities live). The
 * five predefined entities and character references are decoded here, after parsing.
 */
export type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: false,
  htmlEntities: false,
});

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** The predefined entities and numeric character references of a text. */
export function decodeEntities(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (all, name: string) => {
    if (name[0] !== '#') return PREDEFINED[name];
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

/** The bytes of an XML file as text: a UTF-16 BOM, else the declared encoding (UTF-8, ISO-8859-1, windows-1252), else UTF-8. */
export function xmlText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
  const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_-]+)["']/.exec(head)?.[1]?.toLowerCase();
  const encoding = declared === 'iso-8859-1' || declared === 'latin1' || declared === 'windows-1252' ? 'windows-1252' : 'utf-8';
  return new TextDecoder(encoding).decode(bytes).replace(/^\uFEFF/, '');
}

/** The parsed document (root element name → node), or null when it is not well-formed or has a DOCTYPE. */
export function parseXml(text: string): XmlNode | null {
  if (/<!DOCTYPE/i.test(text)) return null;
  try {
    return parser.parse(text, true) as XmlNode;
  } catch {
    return null;
  }
}

const asList = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Every node at the end of `path` (element names without prefixes), in document order. */
export function all(node: unknown, ...path: string[]): unknown[] {
  let current: unknown[] = [node];
  for (const key of path) {
    current = current.flatMap((n) => (n && typeof n === 'object' ? asList((n as XmlNode)[key]) : []));
  }
  return current;
}

/** The first node at the end of `path`. */
export const at = (node: unknown, ...path: string[]): unknown => all(node, ...path)[0];

/** The decoded text of a node (also when it carries attributes), trimmed; null when empty or absent. */
export function text(node: unknown): string | null {
  const raw = typeof node === 'string' ? node : node && typeof node === 'object' ? (node as XmlNode)['#text'] : undefined;
  if (typeof raw !== 'string' && typeof raw !== 'number') return null;
  const value = decodeEntities(String(raw)).replace(/\s+/g, ' ').trim();
  return value === '' ? null : value;
}

/** An attribute of a node, decoded. */
export function attr(node: unknown, name: string): string | null {
  if (!node || typeof node !== 'object') return null;
  const v = (node as XmlNode)[`@${name}`];
  return typeof v === 'string' ? decodeEntities(v).trim() : null;
}
