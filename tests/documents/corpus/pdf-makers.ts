import PDFDocument from 'pdfkit';

/** A PDF made with pdfkit (as invoicing tools on Node make them): `draw` lays out the pages. */
export function makePdf(draw: (doc: PDFKit.PDFDocument) => void, opts: PDFKit.PDFDocumentOptions = {}): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Producer: 'tests', CreationDate: new Date(Date.UTC(2026, 0, 1)) },
    ...opts,
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  draw(doc);
  doc.end();
  return done;
}

/** A PDF carrying an e-invoice as an embedded file (the PDF/A-3 way of Factur-X, ZUGFeRD and XRechnung). */
export function pdfWithAttachment(xml: Buffer, name: string, visible: string[]): Promise<Buffer> {
  return makePdf((doc) => {
    doc.fontSize(18).text(visible[0] ?? 'Invoice');
    doc.fontSize(10);
    for (const line of visible.slice(1)) doc.text(line);
    doc.file(xml, { name, type: 'text/xml', description: 'e-invoice', relationship: 'Alternative' } as PDFKit.Mixins.PDFAttachmentOptions);
  });
}
