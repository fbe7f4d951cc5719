import bidiModule from 'bidi-js';
import { BASE_ASCENDER, FONTS, scriptOf, useFont, type Script, type Weight } from './fonts.js';

/**
 * Text in any of the report's scripts: split into runs of one face and one bidi level, laid out
 * in visual order (the Unicode bidirectional algorithm, bidi-js), each run shaped by fontkit in
 * its own face on one shared baseline. fontkit lays out a Hebrew or Arabic run right to left by
 * itself; other runs at a right-to-left level (spaces, punctuation) are reversed here, mirrored.
 * Text that is all DejaVu and left to right takes pdfkit's plain path, as it always did.
 */

// a UMD module whose module.exports is the factory; its types declare it as `default`
const bidiFactory = bidiModule as unknown as typeof bidiModule.default;
const bidi = bidiFactory();
const RTL_SCRIPTS = new Set<Script>(['hebrew', 'arabic']);
const REORDERED = new Set<Script>(['devanagari']);
const JOINERS = /^[\p{M}\u200c\u200d]$/u;
const ELLIPSIS = '…';

type Run = { text: string; script: Script; level: number };

/** The characters of a text, each with its face ("?" in DejaVu for what no face has). */
function faced(text: string): { chars: string[]; scripts: Script[] } {
  const chars: string[] = [];
  const scripts: Script[] = [];
  for (const c of text) {
    const own = scriptOf(c);
    const prev = scripts[scripts.length - 1];
    const script = prev && prev !== 'base' && JOINERS.test(c) ? prev : own;
    chars.push(script ? c : '?');
    scripts.push(script ?? 'base');
  }
  return { chars, scripts };
}

/** Runs in visual order (left to right on the page) and the paragraph's direction. */
function visualRuns(text: string): { runs: Run[]; rtl: boolean } {
  const { chars, scripts } = faced(text);
  const clean = chars.join('');
  const { levels, paragraphs } = bidi.getEmbeddingLevels(clean, 'auto');
  const runs: Run[] = [];
  let unit = 0;
  chars.forEach((c, i) => {
    const level = levels[unit] ?? 0;
    unit += c.length;
    const last = runs[runs.length - 1];
    if (last && last.script === scripts[i] && last.level === level) last.text += c;
    else runs.push({ text: c, script: scripts[i]!, level });
  });
  // rule L2: from the highest level down to the lowest odd one, reverse every sequence at or above it
  const max = Math.max(0, ...runs.map((r) => r.level));
  const lowestOdd = Math.min(...runs.map((r) => r.level + ((r.level + 1) % 2)));
  for (let level = max; level >= lowestOdd; level--) {
    for (let i = 0; i < runs.length;) {
      if (runs[i]!.level < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < runs.length && runs[j]!.level >= level) j++;
      runs.splice(i, j - i, ...runs.slice(i, j).reverse());
      i = j;
    }
  }
  for (const run of runs)
    if (run.level % 2 === 1 && !RTL_SCRIPTS.has(run.script))
      run.text = Array.from(run.text, (c) => bidi.getMirroredCharacter(c) ?? c)
        .reverse()
        .join('');
  return { runs, rtl: (paragraphs[0]?.level ?? 0) % 2 === 1 };
}

/** True when a text needs nothing but DejaVu, left to right (pdfkit's own path). */
const plain = (text: string): boolean =>
  Array.from(text).every((c) => scriptOf(c) === 'base') && !/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(text);

// features: [] makes pdfkit shape the whole run at once (not word by word), so that a
// right-to-left run of several words comes out in the right order
const SHAPED: PDFKit.Mixins.TextOptions = { lineBreak: false, features: [] };

function widthOf(doc: PDFKit.PDFDocument, runs: Run[], weight: Weight): number {
  let width = 0;
  for (const run of runs) width += useFont(doc, run.script, weight).widthOfString(run.text, SHAPED);
  return width;
}

/** The text, cut at its (logical) end to fit `width` with an ellipsis when it does not. */
function fitted(doc: PDFKit.PDFDocument, text: string, weight: Weight, width: number): string {
  if (widthOf(doc, visualRuns(text).runs, weight) <= width) return text;
  const chars = Array.from(text);
  const cut = (n: number) => chars.slice(0, n).join('').trimEnd() + ELLIPSIS;
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (widthOf(doc, visualRuns(cut(mid)).runs, weight) <= width) lo = mid;
    else hi = mid - 1;
  }
  return cut(lo);
}

export type LineOptions = { weight: Weight; size: number; width?: number; align?: 'left' | 'right' | 'center'; ellipsis?: boolean };

/**
 * One line of text at (x, y) in the document's current colour; leaves doc.x at x and doc.y below
 * the line, with the DejaVu face of `weight` selected.
 */
export function drawLine(doc: PDFKit.PDFDocument, text: string, x: number, y: number, o: LineOptions): PDFKit.PDFDocument {
  doc.fontSize(o.size);
  if (plain(text)) {
    return doc.font(FONTS[o.weight]).text(text, x, y, { width: o.width, align: o.align ?? 'left', lineBreak: false, ellipsis: o.ellipsis });
  }
  const shown = o.width !== undefined && o.ellipsis ? fitted(doc, text, o.weight, o.width) : text;
  const { runs, rtl } = visualRuns(shown);
  const total = widthOf(doc, runs, o.weight);
  const align = o.align ?? (rtl ? 'right' : 'left');
  const room = o.width === undefined ? 0 : Math.max(0, o.width - total);
  let cursor = x + (align === 'right' ? room : align === 'center' ? room / 2 : 0);
  // doc.text's y is the top of the line in the font it prints with: every face sits on DejaVu's baseline
  const baseline = y + (BASE_ASCENDER / 1000) * o.size;
  // a Devanagari vowel sign may print before the consonant it follows: the line's ActualText
  // gives copy-and-paste and search its text in logical order
  const marked = runs.some((run) => REORDERED.has(run.script));
  if (marked) doc.markContent('Span', { actual: Array.from(shown, (c) => (scriptOf(c) ? c : '?')).join('') });
  for (const run of runs) {
    useFont(doc, run.script, o.weight).text(run.text, cursor, baseline, { ...SHAPED, baseline: 'alphabetic' });
    cursor += doc.widthOfString(run.text, SHAPED);
  }
  if (marked) doc.endMarkedContent();
  doc.font(FONTS[o.weight]);
  doc.x = x;
  doc.y = y + doc.currentLineHeight(true);
  return doc;
}

/** A paragraph wrapped to `width` from (x, doc.y), lines aligned to its own direction. */
export function drawBlock(
  doc: PDFKit.PDFDocument,
  text: string,
  x: number,
  o: { weight: Weight; size: number; width: number },
): PDFKit.PDFDocument {
  doc.fontSize(o.size);
  if (plain(text)) return doc.font(FONTS[o.weight]).text(text, x, doc.y, { width: o.width });
  const words = text.split(/(?<=\s)/u);
  let line = '';
  for (const word of words) {
    const next = line + word;
    if (line !== '' && widthOf(doc, visualRuns(next.trimEnd()).runs, o.weight) > o.width) {
      drawLine(doc, line.trimEnd(), x, doc.y, { ...o, ellipsis: true });
      line = word;
    } else line = next;
  }
  return drawLine(doc, line.trimEnd(), x, doc.y, { ...o, ellipsis: true });
}
