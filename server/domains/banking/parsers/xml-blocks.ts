import { XMLParser } from 'fast-xml-parser';
import { parsePlainXml } from './xml-fast.js';

/** One repeated element cut out of a larger XML text, with the 1-based line it starts on. */
export type XmlBlock = { xml: string; lineNo: number };

/**
 * Splits `text` into the elements named `tag` (any namespace prefix) and what is left around them,
 * so a statement's transactions are parsed one at a time instead of as one object tree.
 */
export function splitBlocks(text: string, tag: string, firstLine = 1): { blocks: () => Generator<XmlBlock>; rest: () => string } {
  const open = new RegExp(`<(?:[\\w.-]+:)?${tag}(?=[\\s>/])`, 'g');
  const close = new RegExp(`</(?:[\\w.-]+:)?${tag}\\s*>`, 'g');
  const spans: [number, number][] = [];
  for (let m = open.exec(text); m; m = open.exec(text)) {
    close.lastIndex = m.index;
    const c = close.exec(text);
    const gt = text.indexOf('>', m.index); // the start tag's end: `/>` makes the element empty
    const selfClosing = gt > 0 && text.charCodeAt(gt - 1) === 47; /* / */
    const end = selfClosing && (!c || gt < c.index) ? gt + 1 : c ? c.index + c[0].length : -1;
    if (end < 0) break;
    spans.push([m.index, end]);
    open.lastIndex = end;
  }
  return {
    *blocks() {
      let line = firstLine;
      let pos = 0;
      for (const [start, end] of spans) {
        line += countNewlines(text, pos, start);
        pos = start;
        yield { xml: text.slice(start, end), lineNo: line };
      }
    },
    rest() {
      let out = '';
      let pos = 0;
      for (const [start, end] of spans) {
        out += text.slice(pos, start);
        pos = end;
      }
      return out + text.slice(pos);
    },
  };
}

export function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Elements that are always arrays in parsed objects (they may repeat). */
export const ARRAYS: ReadonlySet<string> = new Set(['Stmt', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd', 'STMTTRN', 'STMTRS']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => ARRAYS.has(name),
});

/** Parses a well-formed XML fragment into plain objects (strings as leaves); throws when it is not well-formed. */
export function parseXml(xml: string): Record<string, unknown> {
  return parser.parse(xml, true) as Record<string, unknown>;
}

/** parseXml of one repeated element (Ntry, STMTTRN): the one-pass reader for plain XML, else parseXml (xml-fast.ts). */
export function parseBlock(xml: string): Record<string, unknown> {
  return parsePlainXml(xml, ARRAYS) ?? parseXml(xml);
}

type Node = Record<string, unknown> | string | undefined;
/** Follows a path of element names; the first element of arrays on the way. */
export function at(node: unknown, ...path: string[]): Node {
  let cur: unknown = node;
  for (const key of path) {
    if (Array.isArray(cur)) cur = cur[0];
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  if (Array.isArray(cur)) cur = cur[0];
  return cur as Node;
}

/** The text of an element (also when it carries attributes). */
export function textOf(node: unknown): string | undefined {
  if (typeof node === 'string') return node;
  if (node && typeof node === 'object' && '#text' in node) return String((node as Record<string, unknown>)['#text']);
  return undefined;
}

export const textAt = (node: unknown, ...path: string[]) => textOf(at(node, ...path));

export function listAt(node: unknown, ...path: string[]): unknown[] {
  const parent = at(node, ...path.slice(0, -1));
  if (!parent || typeof parent !== 'object') return [];
  const v = (parent as Record<string, unknown>)[path[path.length - 1]];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}
