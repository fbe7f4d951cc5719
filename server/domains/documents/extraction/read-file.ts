import { readEinvoiceXml } from './einvoice.js';
import { isEmpty, type ReadOutcome } from './fields.js';
import { OCR_TYPES, readImage } from './ocr.js';
import { readPdf } from './pdf.js';

/**
 * Reads a stored file by its (sniffed) type. Never throws: a malformed file is FAILED, a type
 * with nothing to read is NONE, and DONE always carries at least one field.
 */
export async function readFile(bytes: Uint8Array, mimeType: string): Promise<ReadOutcome> {
  let outcome: ReadOutcome;
  try {
    if (mimeType === 'application/xml' || mimeType === 'text/xml') outcome = readEinvoiceXml(bytes);
    else if (mimeType === 'application/pdf') outcome = await readPdf(bytes);
    else if (OCR_TYPES.has(mimeType)) outcome = await readImage(bytes);
    else outcome = { status: 'NONE', reason: `${mimeType} files are not read` };
  } catch (err) {
    outcome = { status: 'FAILED', reason: (err instanceof Error ? err.message : String(err)).slice(0, 500) };
  }
  if (outcome.status === 'DONE' && isEmpty(outcome.read)) return { status: 'NONE', reason: 'nothing of an invoice was found' };
  return outcome;
}
