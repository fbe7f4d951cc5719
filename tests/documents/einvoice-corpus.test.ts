import { describe, expect, it } from 'vitest';
import { readFile } from '../../server/domains/documents/extraction/read-file.js';
import { EINVOICE_CORPUS, xmlOf, type EInvoiceCase, type Truth } from './corpus/einvoice-corpus.js';
import { pdfWithAttachment } from './corpus/pdf-makers.js';

/**
 * CONTRACT §21 / issue 34: e-invoices are read exactly. Every field of every case of the labelled
 * corpus (≥ 20, UBL 2.1 Invoice and CreditNote, CII as Factur-X and XRechnung, as XML and inside
 * PDFs) must equal its truth: the measure is 100 %.
 */
const FIELDS = ['documentType', 'documentNumber', 'issueDate', 'dueDate', 'currency', 'totalCents', 'taxCents', 'netCents'] as const;

async function bytesOf(c: EInvoiceCase): Promise<{ bytes: Buffer; mime: string }> {
  let xml = xmlOf(c);
  let bytes = Buffer.from(xml, 'utf8');
  if (c.latin1) {
    xml = xml.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
    bytes = Buffer.from(xml, 'latin1');
  }
  if (!c.pdfAttachment) return { bytes, mime: 'application/xml' };
  return {
    bytes: await pdfWithAttachment(bytes, c.pdfAttachment, [`Invoice ${c.invoice.number}`, 'The e-invoice is attached to this PDF.']),
    mime: 'application/pdf',
  };
}

function wrongFields(read: Record<string, unknown>, truth: Truth): string[] {
  const wrong: string[] = FIELDS.filter((f) => read[f] !== truth[f]).map((f) => `${f}: ${String(read[f])} ≠ ${String(truth[f])}`);
  const r = read as { supplier: Truth['supplier']; customer: Truth['customer'] };
  for (const k of ['name', 'taxId', 'iban'] as const)
    if (r.supplier[k] !== truth.supplier[k]) wrong.push(`supplier.${k}: ${r.supplier[k]} ≠ ${truth.supplier[k]}`);
  for (const k of ['name', 'taxId'] as const)
    if (r.customer[k] !== truth.customer[k]) wrong.push(`customer.${k}: ${r.customer[k]} ≠ ${truth.customer[k]}`);
  return wrong;
}

describe('the e-invoice corpus', () => {
  it('has at least 20 cases across UBL Invoice and CreditNote, Factur-X, XRechnung, as XML and inside PDFs', () => {
    expect(EINVOICE_CORPUS.length).toBeGreaterThanOrEqual(20);
    const kinds = new Set(EINVOICE_CORPUS.map((c) => `${c.syntax}${c.invoice.credit ? '-credit' : ''}${c.pdfAttachment ? '-pdf' : ''}`));
    for (const kind of ['UBL', 'UBL-credit', 'CII', 'CII-credit', 'XRECHNUNG', 'XRECHNUNG-credit', 'CII-pdf', 'XRECHNUNG-pdf'])
      expect(kinds).toContain(kind);
  });

  it('reads every field of every case exactly (100 %)', async () => {
    const failures: string[] = [];
    let exactFields = 0;
    let allFields = 0;
    for (const c of EINVOICE_CORPUS) {
      const { bytes, mime } = await bytesOf(c);
      const outcome = await readFile(bytes, mime);
      if (outcome.status !== 'DONE' || outcome.source !== 'EINVOICE') {
        failures.push(`${c.name}: ${JSON.stringify(outcome)}`);
        allFields += 13;
        continue;
      }
      const wrong = wrongFields(outcome.read as unknown as Record<string, unknown>, c.truth);
      allFields += 13;
      exactFields += 13 - wrong.length;
      if (wrong.length) failures.push(`${c.name}: ${wrong.join('; ')}`);
      // every value read from an e-invoice is stated exactly
      for (const [path, { confidence }] of Object.entries(outcome.read.fields)) expect(confidence, `${c.name} ${path}`).toBe(1);
    }
    expect(failures).toEqual([]);
    expect(exactFields / allFields).toBe(1);
  });
});

describe('malformed and hostile XML', () => {
  it('is FAILED (not well-formed) or NONE (another kind of XML), never an exception', async () => {
    expect((await readFile(Buffer.from('<Invoice><cbc:ID>1</Invoice'), 'application/xml')).status).toBe('FAILED');
    expect((await readFile(Buffer.from('<?xml version="1.0"?><note><to>x</to></note>'), 'application/xml')).status).toBe('NONE');
    expect((await readFile(Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x00]), 'application/xml')).status).toBe('FAILED');
  });

  it('never expands entities: a DOCTYPE (entity bombs, external entities) is refused', async () => {
    const bomb =
      '<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">' +
      '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY x SYSTEM "file:///etc/passwd">]>' +
      '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"><cbc:ID>&c;&x;</cbc:ID></Invoice>';
    const outcome = await readFile(Buffer.from(bomb), 'application/xml');
    expect(outcome.status).toBe('FAILED');
    expect(JSON.stringify(outcome)).not.toContain('root:');
  });

  it('an entity reference without a DOCTYPE stays literal (only the five predefined ones and character references decode)', async () => {
    const xml =
      '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">' +
      '<cbc:ID>A&amp;B&#45;&#x31;&foo;</cbc:ID><cbc:IssueDate>2026-01-01</cbc:IssueDate></Invoice>';
    const outcome = await readFile(Buffer.from(xml), 'application/xml');
    expect(outcome.status).toBe('DONE');
    if (outcome.status === 'DONE') expect(outcome.read.documentNumber).toBe('A&B-1&foo;');
  });

  it('amounts that are not decimals, dates that are not dates and unknown currencies are left unknown, not guessed', async () => {
    const xml =
      '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">' +
      '<cbc:ID>X-1</cbc:ID><cbc:IssueDate>2026-02-30</cbc:IssueDate><cbc:DocumentCurrencyCode>eur</cbc:DocumentCurrencyCode>' +
      '<cac:LegalMonetaryTotal><cbc:TaxInclusiveAmount currencyID="EUR">1,190.00</cbc:TaxInclusiveAmount></cac:LegalMonetaryTotal></Invoice>';
    const outcome = await readFile(Buffer.from(xml), 'application/xml');
    expect(outcome.status).toBe('DONE');
    if (outcome.status !== 'DONE') return;
    expect(outcome.read).toMatchObject({ documentNumber: 'X-1', issueDate: null, currency: null, totalCents: null });
  });
});
