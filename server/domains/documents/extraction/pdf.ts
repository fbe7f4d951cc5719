import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { EINVOICE_ATTACHMENTS, readEinvoiceXml } from './einvoice.js';
import type { ReadOutcome } from './fields.js';
import { readTextFields, type TextLine } from './text-fields.js';

/** Pages read for text (invoices state their totals on the first pages; a 500-page upload is not read whole). */
const MAX_PAGES = 8;
const TIMEOUT_MS = 20_000;

type Item = { str: string; x: number; y: number; w: number; size: number };

/** The text items of a page as visual lines (top to bottom), columns separated by a tab. */
function linesOf(items: Item[]): TextLine[] {
  const rows: { y: number; items: Item[] }[] = [];
  for (const it of items) {
    if (!it.str.trim()) continue;
    const row = rows.find((r) => Math.abs(r.y - it.y) <= Math.max(2, it.size * 0.3));
    if (row) row.items.push(it);
    else rows.push({ y: it.y, items: [it] });
  }
  rows.sort((a, b) => b.y - a.y);
  return rows.map((r) => {
    const sorted = r.items.sort((a, b) => a.x - b.x);
    let text = '';
    let end = -Infinity;
    for (const it of sorted) {
      if (text) text += it.x - end > Math.max(8, it.size * 1.2) ? '\t' : it.x - end > it.size * 0.15 ? ' ' : '';
      text += it.str;
      end = it.x + it.w;
    }
    return { text: text.replace(/ {2,}/g, '\t'), size: Math.max(...sorted.map((i) => i.size)) };
  });
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`PDF reading took over ${ms} ms`)), ms)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A PDF: its embedded e-invoice (PDF/A-3 attachment factur-x.xml, zugferd-invoice.xml or
 * xrechnung.xml) read exactly when there is one, else its text layer (PDF_TEXT); NONE without
 * text (a scan), FAILED when the file does not open as a PDF.
 */
export async function readPdf(bytes: Uint8Array): Promise<ReadOutcome> {
  const task = getDocument({
    data: new Uint8Array(bytes), // pdf.js takes the buffer over
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  try {
    return await withTimeout(readOpened(task.promise), TIMEOUT_MS);
  } catch (err) {
    return { status: 'FAILED', reason: `not a readable PDF (${err instanceof Error ? err.message : String(err)})`.slice(0, 500) };
  } finally {
    await task.destroy().catch(() => undefined);
  }
}

type Opened = Awaited<ReturnType<typeof getDocument>['promise']>;

async function readOpened(opening: Promise<Opened>): Promise<ReadOutcome> {
  const pdf = await opening;
  const attachments = ((await pdf.getAttachments()) ?? {}) as Record<string, { filename?: string; content?: Uint8Array }>;
  for (const [key, file] of Object.entries(attachments)) {
    const name = (file.filename ?? key).toLowerCase();
    if (!EINVOICE_ATTACHMENTS.includes(name) || !file.content) continue;
    const outcome = readEinvoiceXml(file.content);
    if (outcome.status === 'DONE') return outcome;
  }
  const lines: TextLine[] = [];
  for (let p = 1; p <= Math.min(pdf.numPages, MAX_PAGES); p++) {
    const page = await pdf.getPage(p);
    const content = await page.getTextContent();
    const items: Item[] = [];
    for (const it of content.items) {
      if (!('str' in it)) continue;
      const size = Math.hypot(it.transform[2], it.transform[3]) || it.height || 10;
      items.push({ str: it.str, x: it.transform[4], y: it.transform[5], w: it.width, size });
    }
    lines.push(...linesOf(items));
    page.cleanup();
  }
  if (!lines.some((l) => /[A-Za-z0-9]/.test(l.text))) return { status: 'NONE', reason: 'the PDF has no text layer' };
  return { status: 'DONE', source: 'PDF_TEXT', read: readTextFields(lines) };
}
