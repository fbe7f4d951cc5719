/**
 * A fast path for the repeated elements of a statement (camt.053 Ntry, OFX STMTTRN): plain XML —
 * elements, quoted attributes, text with the five predefined entities, CDATA sections, namespace
 * prefixes — read in one pass into exactly the objects parseXml (fast-xml-parser, xml-blocks.ts)
 * returns for it. Anything else (comments, processing instructions, a DOCTYPE, other entity or
 * character references, text mixed with child elements, names outside ASCII, anything not
 * well-formed) gives null, and the caller parses the fragment with parseXml as before, which also
 * reports what is wrong. tests/banking/xml-fast.test.ts compares both on such fragments.
 */

type Frame = {
  qname: string;
  local: string;
  attrs: Record<string, string> | null;
  children: Record<string, unknown> | null;
  text: string;
};

const NAME = /[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/y;
const SPACE = /[ \t\r\n]*/y;
const PREDEFINED = new Map([
  ['lt', '<'],
  ['gt', '>'],
  ['amp', '&'],
  ['quot', '"'],
  ['apos', "'"],
]);

/** Text with the predefined entities decoded; null when it holds any other `&…;` or a stray `&` (or `]]>`). */
function decode(raw: string): string | null {
  if (raw.includes(']]>')) return null;
  let amp = raw.indexOf('&');
  if (amp < 0) return raw;
  let out = '';
  let from = 0;
  while (amp >= 0) {
    const semi = raw.indexOf(';', amp);
    if (semi < 0) return null;
    const v = PREDEFINED.get(raw.slice(amp + 1, semi));
    if (v === undefined) return null;
    out += raw.slice(from, amp) + v;
    from = semi + 1;
    amp = raw.indexOf('&', from);
  }
  return out + raw.slice(from);
}

const localName = (qname: string) => {
  const colon = qname.indexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
};

function addChild(parent: Record<string, unknown>, key: string, value: unknown, arrays: ReadonlySet<string>): void {
  const existing = parent[key];
  if (arrays.has(key)) {
    if (existing === undefined) parent[key] = [value];
    else (existing as unknown[]).push(value);
  } else if (existing === undefined) parent[key] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else parent[key] = [existing, value];
}

/** The value of a closed element as fast-xml-parser shapes it (`@` attributes; `#text` beside attributes). */
function valueOf(f: Frame): unknown | null {
  const text = f.text;
  if (f.children) {
    if (text) return null; // mixed content
    return f.attrs ? { ...f.attrs, ...f.children } : f.children;
  }
  if (f.attrs) return text ? { ...f.attrs, '#text': text } : null; // an element of attributes only: the general parser
  return text;
}

/** The fragment's one root element, shaped as parseXml shapes it, or null (see the file comment). */
export function parsePlainXml(xml: string, arrays: ReadonlySet<string>): Record<string, unknown> | null {
  const stack: Frame[] = [];
  const root: Record<string, unknown> = {};
  let roots = 0;
  let i = 0;
  const n = xml.length;
  while (i < n) {
    const lt = xml.indexOf('<', i);
    const end = lt < 0 ? n : lt;
    if (end > i) {
      const top = stack[stack.length - 1];
      if (!top) {
        if (xml.slice(i, end).trim()) return null;
      } else {
        const t = decode(xml.slice(i, end));
        if (t === null) return null;
        top.text += t.trim(); // each text run trimmed, CDATA kept as written (as fast-xml-parser does)
      }
    }
    if (lt < 0) break;
    const c = xml.charCodeAt(lt + 1);
    if (c === 47 /* / */) {
      const gt = xml.indexOf('>', lt);
      if (gt < 0) return null;
      const qname = xml.slice(lt + 2, gt).trimEnd();
      const f = stack.pop();
      if (!f || f.qname !== qname) return null;
      const value = valueOf(f);
      if (value === null) return null;
      const parent = stack[stack.length - 1];
      if (parent) addChild((parent.children ??= {}), f.local, value, arrays);
      else {
        addChild(root, f.local, value, arrays);
        roots++;
      }
      i = gt + 1;
      continue;
    }
    if (c === 33 /* ! */) {
      if (!xml.startsWith('<![CDATA[', lt)) return null;
      const close = xml.indexOf(']]>', lt + 9);
      const top = stack[stack.length - 1];
      if (close < 0 || !top) return null;
      top.text += xml.slice(lt + 9, close);
      i = close + 3;
      continue;
    }
    // a start tag
    NAME.lastIndex = lt + 1;
    const name = NAME.exec(xml);
    if (!name) return null;
    const qname = name[0];
    let p = lt + 1 + qname.length;
    let attrs: Record<string, string> | null = null;
    let selfClosing = false;
    for (;;) {
      SPACE.lastIndex = p;
      SPACE.exec(xml);
      const spaced = SPACE.lastIndex > p;
      p = SPACE.lastIndex;
      const ch = xml.charCodeAt(p);
      if (ch === 62 /* > */) {
        p++;
        break;
      }
      if (ch === 47 /* / */ && xml.charCodeAt(p + 1) === 62) {
        selfClosing = true;
        p += 2;
        break;
      }
      if (!spaced) return null;
      NAME.lastIndex = p;
      const attr = NAME.exec(xml);
      if (!attr) return null;
      p += attr[0].length;
      SPACE.lastIndex = p;
      SPACE.exec(xml);
      p = SPACE.lastIndex;
      if (xml.charCodeAt(p) !== 61 /* = */) return null;
      SPACE.lastIndex = p + 1;
      SPACE.exec(xml);
      p = SPACE.lastIndex;
      const quote = xml[p];
      if (quote !== '"' && quote !== "'") return null;
      const close = xml.indexOf(quote, p + 1);
      if (close < 0) return null;
      const raw = xml.slice(p + 1, close);
      if (raw.includes('<')) return null;
      const value = decode(raw);
      if (value === null) return null;
      p = close + 1;
      const aname = attr[0];
      if (aname === 'xmlns' || aname.startsWith('xmlns:')) continue; // namespace declarations are dropped (removeNSPrefix)
      if (/[\t\r\n]/.test(value) || value !== value.trim()) return null; // attribute whitespace: the general parser
      attrs ??= {};
      const key = `@${localName(aname)}`;
      if (key in attrs) return null;
      attrs[key] = value;
    }
    const frame: Frame = { qname, local: localName(qname), attrs, children: null, text: '' };
    if (selfClosing) {
      const value = valueOf(frame);
      if (value === null) return null;
      const parent = stack[stack.length - 1];
      if (parent) addChild((parent.children ??= {}), frame.local, value, arrays);
      else {
        addChild(root, frame.local, value, arrays);
        roots++;
      }
    } else {
      if (!stack.length && roots) return null; // a second root
      stack.push(frame);
    }
    i = p;
  }
  if (stack.length || roots !== 1) return null;
  return root;
}
