import { readCii } from './cii.js';
import type { ReadOutcome } from './fields.js';
import { readUbl } from './ubl.js';
import { parseXml, xmlText, type XmlNode } from './xml.js';

/** The attachment names of e-invoices inside PDF/A-3 files (Factur-X, ZUGFeRD 2, XRechnung), compared ignoring case. */
export const EINVOICE_ATTACHMENTS = ['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml'];

/** Whether an XML file's root is an e-invoice this reader knows (cheap: looks at the root only). */
export function einvoiceRoot(doc: XmlNode): { kind: 'Invoice' | 'CreditNote' | 'CII'; root: XmlNode } | null {
  for (const [name, node] of Object.entries(doc)) {
    if (name.startsWith('?') || !node || typeof node !== 'object') continue;
    if (name === 'Invoice' || name === 'CreditNote') return { kind: name, root: node as XmlNode };
    if (name === 'CrossIndustryInvoice') return { kind: 'CII', root: node as XmlNode };
    return null;
  }
  return null;
}

/**
 * An XML file read as an e-invoice: DONE with the exact fields; NONE for well-formed XML of
 * another kind; FAILED for XML that is not well-formed (or carries a DOCTYPE).
 */
export function readEinvoiceXml(bytes: Uint8Array): ReadOutcome {
  const doc = parseXml(xmlText(bytes));
  if (!doc) return { status: 'FAILED', reason: 'not well-formed XML (or it has a DOCTYPE)' };
  const found = einvoiceRoot(doc);
  if (!found) return { status: 'NONE', reason: 'XML, but not a UBL or CII e-invoice' };
  const read = found.kind === 'CII' ? readCii(found.root) : readUbl(found.root, found.kind);
  return { status: 'DONE', source: 'EINVOICE', read };
}
