import { drawLine } from './script-text.js';

export type Column = { header: string; width: number; align?: 'left' | 'right' };

export const TABLE_ROW_HEIGHT = 16;
const ROW_HEIGHT = TABLE_ROW_HEIGHT;
const PAD = 4;
const FONT_SIZE = 8.5;

/** Room to keep free at the bottom of a page for the footer. */
export const FOOTER_SPACE = 30;

export function ensureRoom(doc: PDFKit.PDFDocument, height: number): void {
  if (doc.y + height > doc.page.height - doc.page.margins.bottom - FOOTER_SPACE) doc.addPage();
}

function drawRow(doc: PDFKit.PDFDocument, columns: Column[], cells: string[], opts: { header?: boolean; shaded?: boolean }): void {
  const x0 = doc.page.margins.left;
  const y = doc.y;
  const width = columns.reduce((w, c) => w + c.width, 0);
  if (opts.header) doc.rect(x0, y, width, ROW_HEIGHT).fill('#e8ecf1');
  else if (opts.shaded) doc.rect(x0, y, width, ROW_HEIGHT).fill('#f7f8fa');
  doc.fillColor('#1f2933');
  let x = x0;
  columns.forEach((c, i) => {
    drawLine(doc, cells[i] ?? '', x + PAD, y + 4.5, {
      weight: opts.header ? 'bold' : 'regular',
      size: FONT_SIZE,
      width: c.width - 2 * PAD,
      align: c.align,
      ellipsis: true,
    });
    x += c.width;
  });
  doc
    .moveTo(x0, y + ROW_HEIGHT)
    .lineTo(x0 + width, y + ROW_HEIGHT)
    .lineWidth(0.5)
    .strokeColor('#cfd6de')
    .stroke();
  doc.x = x0;
  doc.y = y + ROW_HEIGHT;
}

/** A ruled table; the header row repeats when it continues on a new page. */
export function drawTable(doc: PDFKit.PDFDocument, columns: Column[], rows: string[][], emptyText = 'Nothing to show'): void {
  ensureRoom(doc, ROW_HEIGHT * 2);
  drawRow(
    doc,
    columns,
    columns.map((c) => c.header),
    { header: true },
  );
  if (rows.length === 0) {
    const width = columns.reduce((w, c) => w + c.width, 0);
    drawRow(doc, [{ header: '', width }], [emptyText], {});
    return;
  }
  rows.forEach((cells, i) => {
    if (doc.y + ROW_HEIGHT > doc.page.height - doc.page.margins.bottom - FOOTER_SPACE) {
      doc.addPage();
      drawRow(
        doc,
        columns,
        columns.map((c) => c.header),
        { header: true },
      );
    }
    drawRow(doc, columns, cells, { shaded: i % 2 === 1 });
  });
}
