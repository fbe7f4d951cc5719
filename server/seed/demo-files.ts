import { crc32, deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A valid RGB PNG of `width` × `height` filled by `pixel(x, y)` → [r, g, b]. */
export function makePng(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, truecolour, deflate, adaptive filtering, no interlace
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3); // filter byte 0 (none), then the pixels
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), row + 1 + x * 3);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

export type ReceiptLine = { description: string; amount: string };

/** A one-page PDF receipt (pdfkit, built-in Helvetica). */
export function makeReceiptPdf(receipt: {
  title: string;
  issuer: string;
  date: string;
  lines: ReceiptLine[];
  total: string;
}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A5', margin: 40, info: { Title: receipt.title, Author: receipt.issuer } });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.fontSize(18).text(receipt.title);
    doc.moveDown(0.5).fontSize(10).text(receipt.issuer).text(`Date: ${receipt.date}`);
    doc.moveDown();
    for (const line of receipt.lines) doc.text(`${line.description}  ${line.amount}`);
    doc.moveDown().fontSize(12).text(`Total: ${receipt.total}`);
    doc.end();
  });
}
