import { describe, expect, it } from 'vitest';
import { readFile } from '../../server/domains/documents/extraction/read-file.js';
import { pdfOf, TEXT_PDF_CORPUS, truthOf } from './corpus/text-pdf-corpus.js';

/**
 * Issue 34: text PDFs made as invoicing tools make them are read from their text layer; total,
 * currency, issue date and number must each be right on at least 90 % of the labelled corpus, and
 * every value comes with a confidence below 1 (text is never exact).
 */
const KEYS = ['totalCents', 'currency', 'issueDate', 'documentNumber'] as const;

describe('the text-PDF corpus', () => {
  it('has at least 20 invoices and receipts over several layouts', () => {
    expect(TEXT_PDF_CORPUS.length).toBeGreaterThanOrEqual(20);
    expect(new Set(TEXT_PDF_CORPUS.map((i) => i.layout)).size).toBeGreaterThanOrEqual(8);
  });

  it('total, currency, issue date and number are each right on ≥ 90 %', async () => {
    const right = Object.fromEntries(KEYS.map((k) => [k, 0])) as Record<(typeof KEYS)[number], number>;
    const misses: string[] = [];
    for (const inv of TEXT_PDF_CORPUS) {
      const outcome = await readFile(await pdfOf(inv), 'application/pdf');
      expect(outcome.status, `${inv.layout} ${inv.number}`).toBe('DONE');
      if (outcome.status !== 'DONE') continue;
      expect(outcome.source).toBe('PDF_TEXT');
      const truth = truthOf(inv);
      for (const k of KEYS) {
        if (outcome.read[k] === truth[k]) right[k]++;
        else misses.push(`${inv.layout} ${inv.number} ${k}: ${String(outcome.read[k])} ≠ ${String(truth[k])}`);
      }
      for (const [path, { confidence }] of Object.entries(outcome.read.fields)) {
        expect(confidence, path).toBeGreaterThan(0);
        expect(confidence, path).toBeLessThan(1);
      }
    }
    const rates = Object.fromEntries(KEYS.map((k) => [k, right[k] / TEXT_PDF_CORPUS.length]));
    console.info(`text-PDF corpus (${TEXT_PDF_CORPUS.length}): ${JSON.stringify(rates)}; misses: ${JSON.stringify(misses)}`);
    for (const k of KEYS) expect(rates[k], `${k}: ${misses.join(' | ')}`).toBeGreaterThanOrEqual(0.9);
  });

  it('a credit note reads as CREDIT_NOTE with its total positive', async () => {
    const credit = TEXT_PDF_CORPUS.find((i) => i.layout === 'credit')!;
    const outcome = await readFile(await pdfOf(credit), 'application/pdf');
    expect(outcome.status === 'DONE' && outcome.read).toMatchObject({
      documentType: 'CREDIT_NOTE',
      totalCents: truthOf(credit).totalCents,
    });
  });
});

describe('PDFs that are not readable', () => {
  it('a malformed PDF is FAILED, a PDF without text is NONE; neither throws', async () => {
    const broken = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ngarbage\n%%EOF\n', 'latin1');
    expect((await readFile(broken, 'application/pdf')).status).toMatch(/^(FAILED|NONE)$/);
    const truncated = (await pdfOf(TEXT_PDF_CORPUS[0])).subarray(0, 300);
    expect((await readFile(truncated, 'application/pdf')).status).toMatch(/^(FAILED|NONE)$/);
    const { makePdf } = await import('./corpus/pdf-makers.js');
    const drawing = await makePdf((doc) => void doc.rect(50, 50, 200, 100).fill('#333'));
    expect(await readFile(drawing, 'application/pdf')).toMatchObject({ status: 'NONE' });
  });
});
