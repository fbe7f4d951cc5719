import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetOcrAvailability, ocrAvailable } from '../../../server/domains/documents/extraction/ocr.js';
import { readFile } from '../../../server/domains/documents/extraction/read-file.js';
import { ensureDebianPackage } from '../../support/debian-package.js';

/**
 * CONTRACT §21 with the real tools of Debian: an invoice written in LibreOffice Writer (exported to
 * PDF by LibreOffice itself) is read from its text layer, and the same page as an image is read by
 * OCR through tesseract-ocr. Both are installed here when missing.
 */
const run = promisify(execFile);
let dir: string;
let soffice: string;

const INVOICE_HTML = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Invoice</title>
<style>body { font-family: 'DejaVu Sans', sans-serif; font-size: 20pt } td { padding: 4pt 16pt } h1 { font-size: 30pt }</style></head>
<body>
<h1>Lakeside Print Shop</h1>
<p>42 Harbour Road, Portsmouth PO1 2AB</p>
<h2>INVOICE</h2>
<p>Invoice No: LPS-2026-0815</p>
<p>Invoice Date: 14/08/2026</p>
<p>Bill To: Harbour Museum Trust</p>
<table>
<tr><td>Posters A2</td><td>40</td><td>£2.50</td><td>£100.00</td></tr>
<tr><td>Banner</td><td>1</td><td>£145.00</td><td>£145.00</td></tr>
</table>
<p>Subtotal: £245.00</p>
<p>VAT 20%: £49.00</p>
<p>Total: £294.00</p>
<p>VAT Reg No: GB 123 4567 89</p>
</body></html>`;

async function convert(input: string, to: string): Promise<Buffer> {
  const profile = `file://${path.join(dir, 'profile')}`;
  await run(
    soffice,
    [`-env:UserInstallation=${profile}`, '--headless', '--infilter=HTML (StarWriter)', '--convert-to', to, '--outdir', dir, input],
    {
      timeout: 300_000,
    },
  );
  const out = path.join(dir, `${path.basename(input, '.html')}.${to.split(':')[0]}`);
  return readFileSync(out);
}

/** Page 1 of a PDF as a PNG, through pdf.js's canvas (the @napi-rs/canvas it installs). */
async function rasterise(pdfBytes: Buffer): Promise<Buffer> {
  const pdf = await getDocument({ data: new Uint8Array(pdfBytes), verbosity: 0 }).promise;
  try {
    const page = await pdf.getPage(1);
    const viewport = page.getViewport({ scale: 3 });
    const factory = (
      pdf as unknown as {
        canvasFactory: { create: (w: number, h: number) => { canvas: { toBuffer: (t: string) => Buffer }; context: unknown } };
      }
    ).canvasFactory;
    const { canvas, context } = factory.create(viewport.width, viewport.height);
    await page.render({ canvasContext: context as never, viewport }).promise;
    return canvas.toBuffer('image/png');
  } finally {
    await pdf.destroy();
  }
}

beforeAll(async () => {
  soffice = await ensureDebianPackage(['libreoffice-writer-nogui'], 'soffice');
  await ensureDebianPackage(['tesseract-ocr', 'tesseract-ocr-eng'], 'tesseract');
  forgetOcrAvailability();
  dir = mkdtempSync(path.join(os.tmpdir(), 'docs-office-'));
  writeFileSync(path.join(dir, 'invoice.html'), INVOICE_HTML);
}, 1_500_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('documents read with Debian tools', () => {
  it('an invoice LibreOffice exported to PDF is read from its text layer', async () => {
    const pdf = await convert(path.join(dir, 'invoice.html'), 'pdf:writer_pdf_Export');
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const outcome = await readFile(pdf, 'application/pdf');
    expect(outcome.status, JSON.stringify(outcome)).toBe('DONE');
    if (outcome.status !== 'DONE') return;
    expect(outcome.source).toBe('PDF_TEXT');
    expect(outcome.read).toMatchObject({
      totalCents: 29400,
      currency: 'GBP',
      issueDate: '2026-08-14',
      documentNumber: 'LPS-2026-0815',
      taxCents: 4900,
      netCents: 24500,
    });
  }, 600_000);

  it('the same page as an image is read by OCR (tesseract installed), with confidences below the text layer', async () => {
    expect(ocrAvailable()).toBe(true);
    // LibreOffice's own PNG export needs its GUI build: the page is rasterised by pdf.js (@napi-rs/canvas) instead, a scan at 216 dpi
    const pdf = await convert(path.join(dir, 'invoice.html'), 'pdf:writer_pdf_Export');
    const png = await rasterise(pdf);
    const outcome = await readFile(png, 'image/png');
    expect(outcome.status, JSON.stringify(outcome)).toBe('DONE');
    if (outcome.status !== 'DONE') return;
    expect(outcome.source).toBe('OCR');
    expect(outcome.read).toMatchObject({ totalCents: 29400, currency: 'GBP', documentNumber: 'LPS-2026-0815' });
    for (const { confidence } of Object.values(outcome.read.fields)) expect(confidence).toBeLessThanOrEqual(0.8);
  }, 600_000);
});
