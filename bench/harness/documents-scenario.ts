/**
 * Documents (issue 34, CONTRACT §21): how fast the service reads invoices, and how fast it suggests
 * entries for one.
 * - extraction XML: UBL e-invoices read per second in this process (readFile: parse, fields,
 *   amounts), beside the bare fast-xml-parser parse of the same files;
 * - extraction text PDF: pdfkit invoices read per second (pdf.js text layer + the field reader),
 *   beside pdf.js opening the same files and taking their text alone;
 * - GET /inbox/documents/{id}/suggestions against the dataset workspace (1,000,000 entries in the
 *   full run): p95 ≤ 50 ms, beside the exact-amount candidate query alone on a raw connection.
 * The inbox rows the scenario writes are removed afterwards.
 */
import { randomBytes, createHash } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import PDFDocument from 'pdfkit';
import pg from 'pg';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { readFile } from '../../server/domains/documents/extraction/read-file.js';
import { inboxScenarios } from './inbox-scenario.js';
import { repeat } from './load.js';
import { metered } from './cpu.js';
import type { BenchContext } from './scenarios.js';
import { cpuOf, type ResultRow } from './table.js';

/** ours ÷ the bare parse (reading fields, amounts and names costs at most this much more than parsing) */
const XML_MIN_RATIO = 0.5;
const PDF_TARGET = 10; // documents/s
const SUGGEST_P95_MS = 50;

const money = (c: number) => `${Math.trunc(c / 100)}.${String(c % 100).padStart(2, '0')}`;
function ublInvoice(i: number): Buffer {
  const total = 1000 + ((i * 7919) % 500_000);
  const tax = Math.round((total * 19) / 119);
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
<cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID><cbc:ID>B-${i}</cbc:ID><cbc:IssueDate>2026-03-${String((i % 28) + 1).padStart(2, '0')}</cbc:IssueDate>
<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode><cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
<cac:AccountingSupplierParty><cac:Party><cac:PartyTaxScheme><cbc:CompanyID>DE${100000000 + i}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme><cac:PartyLegalEntity><cbc:RegistrationName>Supplier ${i % 50} GmbH</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>
<cac:AccountingCustomerParty><cac:Party><cac:PartyLegalEntity><cbc:RegistrationName>Bench Ltd</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>
<cac:PaymentMeans><cbc:PaymentMeansCode>58</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>DE89370400440532013000</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">${money(tax)}</cbc:TaxAmount></cac:TaxTotal>
<cac:LegalMonetaryTotal><cbc:TaxExclusiveAmount currencyID="EUR">${money(total - tax)}</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="EUR">${money(total)}</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">${money(total)}</cbc:PayableAmount></cac:LegalMonetaryTotal>
${Array.from({ length: 10 }, (_, k) => `<cac:InvoiceLine><cbc:ID>${k + 1}</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">1.00</cbc:LineExtensionAmount><cac:Item><cbc:Name>Item ${k}</cbc:Name></cac:Item><cac:Price><cbc:PriceAmount currencyID="EUR">1.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>`).join('\n')}
</Invoice>`);
}

function pdfInvoice(i: number, number = String(i)): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 50 });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  doc.fontSize(20).text(`Supplier ${i % 50} Inc.`, 50, 50);
  doc
    .fontSize(10)
    .text(`Invoice Number: INV-${number}`, 340, 100)
    .text('Invoice Date: March 5, 2026', 340, 115)
    .text('Bill To: Bench Ltd', 50, 140);
  for (let k = 0; k < 12; k++) doc.text(`Line item ${k}`, 50, 200 + k * 16).text(`$${k + 1}.00`, 480, 200 + k * 16);
  doc
    .text('Subtotal', 330, 420)
    .text('$78.00', 480, 420)
    .text('Total', 330, 438)
    .text(`$${78 + (i % 100)}.00`, 480, 438);
  doc.end();
  return done;
}

const perSecond = (n: number, ms: number) => (n * 1000) / ms;

function row(
  scenario: string,
  unit: string,
  ours: number,
  baseline: number,
  target: string,
  met: boolean,
  note: string,
  lat = { p50: 0, p95: 0, p99: 0, baseP95: 0 },
): ResultRow {
  return {
    scenario,
    unit,
    ours,
    baseline,
    ratio: ours / baseline,
    p50: lat.p50,
    p95: lat.p95,
    p99: lat.p99,
    baselineP95: lat.baseP95,
    peakRssMB: 0,
    target,
    met,
    note,
  };
}

async function xmlThroughput(c: BenchContext): Promise<ResultRow> {
  const n = c.settings.entries >= 1_000_000 ? 2000 : 300;
  const files = Array.from({ length: n }, (_, i) => ublInvoice(i));
  const parser = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, processEntities: false });
  for (const f of files.slice(0, 50)) {
    parser.parse(f.toString('utf8')); // warm both sides up before timing either
    await readFile(f, 'application/xml');
  }
  let t0 = performance.now();
  for (const f of files) parser.parse(f.toString('utf8'));
  const base = perSecond(n, performance.now() - t0);
  t0 = performance.now();
  let done = 0;
  for (const f of files) if ((await readFile(f, 'application/xml')).status === 'DONE') done++;
  const ours = perSecond(n, performance.now() - t0);
  return row(
    'documents: extraction XML (UBL)',
    'docs/s',
    ours,
    base,
    `ratio >= ${XML_MIN_RATIO}`,
    ours / base >= XML_MIN_RATIO && done === n,
    `${n} invoices, ${done} DONE; baseline: fast-xml-parser alone`,
  );
}

async function pdfThroughput(c: BenchContext): Promise<ResultRow> {
  const n = c.settings.entries >= 1_000_000 ? 200 : 40;
  const files = await Promise.all(Array.from({ length: n }, (_, i) => pdfInvoice(i)));
  for (const f of files.slice(0, 5)) await readFile(f, 'application/pdf'); // warm-up (pdf.js loads its modules once)
  let t0 = performance.now();
  for (const f of files) {
    const task = getDocument({ data: new Uint8Array(f), isEvalSupported: false, disableFontFace: true, verbosity: 0 });
    const pdf = await task.promise;
    await (await pdf.getPage(1)).getTextContent();
    await task.destroy();
  }
  const base = perSecond(n, performance.now() - t0);
  t0 = performance.now();
  let done = 0;
  for (const f of files) if ((await readFile(f, 'application/pdf')).status === 'DONE') done++;
  const ours = perSecond(n, performance.now() - t0);
  return row(
    'documents: extraction text PDF',
    'docs/s',
    ours,
    base,
    `>= ${PDF_TARGET} docs/s`,
    ours >= PDF_TARGET && done === n,
    `${n} pdfkit invoices, ${done} DONE; baseline: pdf.js text alone`,
  );
}

type Sample = { amount_cents: number; base_currency: string; entry_date: string; reference: string | null; party: string | null };

async function suggestions(c: BenchContext): Promise<ResultRow> {
  const client = new pg.Client({ connectionString: c.url });
  await client.connect();
  const ws = c.dataset.workspaceId;
  const ids: string[] = [];
  try {
    const { rows: samples } = await client.query<Sample>(
      `SELECT e.amount_cents, e.base_currency, e.entry_date::text AS entry_date, e.reference, p.name AS party
         FROM entries e LEFT JOIN parties p ON p.id = e.to_party_id
        WHERE e.workspace_id = $1 AND e.id BETWEEN $2 AND $3 AND e.entry_status IN ('PENDING','UNDER_REVIEW','COMPLETED')
        ORDER BY e.id LIMIT 20`,
      [ws, c.dataset.entryIds[0] + 1000, c.dataset.entryIds[1]],
    );
    for (const [k, s] of samples.entries()) {
      const sha = createHash('sha256').update(randomBytes(16)).digest('hex');
      const read = {
        documentType: 'BASIS',
        documentNumber: s.reference ?? `BENCH-${k}`,
        issueDate: s.entry_date,
        dueDate: null,
        currency: s.base_currency.trim(),
        totalCents: Number(s.amount_cents),
        taxCents: null,
        netCents: null,
        supplier: { name: s.party, taxId: null, iban: null },
        customer: { name: null, taxId: null },
        fields: { totalCents: { confidence: 0.9 }, currency: { confidence: 0.9 } },
      };
      await client.query(
        `INSERT INTO document_extractions (workspace_id, sha256, storage_key, mime_type, status, source, fields, extracted_at)
         VALUES ($1, $2, $3, 'application/pdf', 'DONE', 'PDF_TEXT', $4, now())`,
        [ws, sha, `bench/${sha}`, JSON.stringify(read)],
      );
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO inbox_documents (workspace_id, document_name, mime_type, file_size, sha256, storage_key, auto_checked)
         VALUES ($1, 'bench.pdf', 'application/pdf', 1, $2, $3, true) RETURNING id`,
        [ws, sha, `bench/${sha}`],
      );
      ids.push(rows[0].id);
    }
    const runs = c.settings.entries >= 1_000_000 ? 400 : 100;
    let k = 0;
    let errors = 0;
    const get = async () => {
      const res = await fetch(`${c.server.base}/inbox/documents/${ids[k++ % ids.length]}/suggestions`, {
        headers: { authorization: `Bearer ${c.token}` },
      });
      if (res.status !== 200) errors++;
      await res.arrayBuffer();
    };
    for (let w = 0; w < 20; w++) await get(); // warm-up
    k = 0;
    const ours = await metered(c, () => repeat(runs, get));
    let j = 0;
    const base = await repeat(runs, async () => {
      const s = samples[j++ % samples.length];
      await client.query('SELECT id FROM entries WHERE workspace_id = $1 AND amount_cents = $2 AND base_currency = $3 LIMIT 60', [
        ws,
        s.amount_cents,
        s.base_currency,
      ]);
    });
    const suggestionsRow = row(
      'documents: GET /inbox/documents/{id}/suggestions',
      'req/s',
      ours.perSecond,
      base.perSecond,
      `p95 <= ${SUGGEST_P95_MS} ms`,
      ours.p95 <= SUGGEST_P95_MS && errors === 0,
      `${c.settings.entries} entries, ${ids.length} documents, ${runs} sequential requests, ${errors} errors; baseline: the exact-amount query alone`,
      { p50: ours.p50, p95: ours.p95, p99: ours.p99, baseP95: base.p95 },
    );
    return { ...suggestionsRow, cpuPerRequest: cpuOf(ours) };
  } finally {
    await client.query('DELETE FROM inbox_documents WHERE id = ANY ($1::uuid[])', [ids]);
    await client.query(`DELETE FROM document_extractions WHERE workspace_id = $1 AND storage_key LIKE 'bench/%'`, [ws]);
    await client.end();
  }
}

export const documentScenarios = (c: BenchContext): [string, () => Promise<ResultRow>][] => [
  ['documents: extraction XML', () => xmlThroughput(c)],
  ['documents: extraction text PDF', () => pdfThroughput(c)],
  ['documents: suggestions', () => suggestions(c)],
  ...inboxScenarios(c, pdfInvoice),
];
