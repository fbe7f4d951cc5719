import { QueryTypes } from 'sequelize';
import { db } from '../db/database.js';
import { formatMinorUnits } from '../lib/money.js';
import type { Actor } from '../lib/scope.js';
import { uploadDocument, approveDocument, requestDocument, drainExtractions, uploadToInbox } from '../domains/documents/index.js';
import { makePng, makeReceiptPdf } from './demo-files.js';
import type { DemoWorkspace } from './demo-entries.js';

type Candidate = { id: number; entry_date: string; description: string | null; amount_cents: number; base_currency: string };

/**
 * Real documents through the documents service: a PDF receipt (approved, so that entry is
 * complete), a PNG payment proof, and one REQUESTED placeholder on another entry.
 */
export async function seedDemoDocuments(actor: Actor, ws: DemoWorkspace): Promise<void> {
  const entries = await db().query<Candidate>(
    `SELECT e.id, e.entry_date::text, e.description, e.amount_cents, e.base_currency
       FROM entries e
      WHERE e.workspace_id = :ws AND e.entry_type = 'EXPENSE' AND e.entry_status NOT IN ('VOIDED', 'CANCELLED')
        AND NOT EXISTS (SELECT 1 FROM entry_links l WHERE l.workspace_id = e.workspace_id AND l.derived_entry_id = e.id)
      ORDER BY e.entry_date DESC, e.id DESC LIMIT 2`,
    { replacements: { ws: ws.workspaceId }, type: QueryTypes.SELECT },
  );
  if (entries.length < 2) return;
  const [receipted, pending] = entries;
  const currency = receipted.base_currency.trim();
  const total = `${formatMinorUnits(receipted.amount_cents, currency)} ${currency}`;
  const pdf = await makeReceiptPdf({
    title: 'Receipt',
    issuer: 'Acme Supplies GmbH',
    date: receipted.entry_date,
    lines: [{ description: receipted.description ?? 'Purchase', amount: total }],
    total,
  });
  const receipt = await uploadDocument(actor, {
    entryId: receipted.id,
    workspaceId: ws.workspaceId,
    documentType: 'BASIS',
    file: { bytes: pdf, fileName: `receipt-${receipted.entry_date}.pdf`, declaredType: 'application/pdf' },
  });
  await approveDocument(actor, receipted.id, receipt.id);
  const png = makePng(32, 32, (x, y) => [40 + x * 6, 120 + y * 3, 200 - x * 2]);
  await uploadDocument(actor, {
    entryId: receipted.id,
    workspaceId: ws.workspaceId,
    documentType: 'PAYMENT_PROOF',
    file: { bytes: png, fileName: 'bank-transfer-confirmation.png', declaredType: 'image/png' },
  });
  await requestDocument(actor, {
    entryId: pending.id,
    documentName: 'Supplier invoice',
    documentType: 'BASIS',
    comment: 'Please upload the original invoice for this expense.',
  });
  await seedDemoInbox(actor, ws, [receipted.id, pending.id]);
}

type InboxCandidate = Candidate & { reference: string | null; party: string | null };

const money = (cents: number) => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
const daysBefore = (iso: string, n: number) => new Date(Date.parse(iso) - n * 86_400_000).toISOString().slice(0, 10);

/** A UBL 2.1 (Peppol BIS Billing 3.0) invoice of `total` minor units with 19 % VAT. */
function demoUbl(o: { number: string; issueDate: string; currency: string; total: number; supplier: string; supplierVat: string }): Buffer {
  const tax = Math.round((o.total * 19) / 119);
  const c = o.currency;
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>
  <cbc:ID>${o.number}</cbc:ID>
  <cbc:IssueDate>${o.issueDate}</cbc:IssueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>${c}</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party>
    <cac:PartyTaxScheme><cbc:CompanyID>${o.supplierVat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyLegalEntity><cbc:RegistrationName>${o.supplier.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</cbc:RegistrationName></cac:PartyLegalEntity>
  </cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party><cac:PartyLegalEntity><cbc:RegistrationName>Demo Company</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>
  <cac:PaymentMeans><cbc:PaymentMeansCode>58</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>DE89370400440532013000</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
  <cac:TaxTotal><cbc:TaxAmount currencyID="${c}">${money(tax)}</cbc:TaxAmount></cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="${c}">${money(o.total - tax)}</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount currencyID="${c}">${money(o.total - tax)}</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="${c}">${money(o.total)}</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="${c}">${money(o.total)}</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  <cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount currencyID="${c}">${money(o.total - tax)}</cbc:LineExtensionAmount>
    <cac:Item><cbc:Name>Services</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>19</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="${c}">${money(o.total - tax)}</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
</Invoice>
`);
}

/**
 * The inbox (CONTRACT §21): an e-invoice that auto-attaches to the one expense it describes (its
 * amount, currency and supplier), a PDF receipt waiting with suggestions (read from text, so a
 * person confirms it), and an e-invoice of a supplier the books do not know yet (for create-entry).
 * Read at once, as the background worker would.
 */
async function seedDemoInbox(actor: Actor, ws: DemoWorkspace, taken: number[]): Promise<void> {
  const entries = await db().query<InboxCandidate>(
    `SELECT e.id, e.entry_date::text, e.description, e.amount_cents, e.base_currency, e.reference, p.name AS party
       FROM entries e JOIN parties p ON p.workspace_id = e.workspace_id AND p.id = e.to_party_id
      WHERE e.workspace_id = :ws AND e.entry_type = 'EXPENSE' AND e.entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED')
        AND e.id NOT IN (:taken) AND e.amount_cents > 0
        AND NOT EXISTS (SELECT 1 FROM entry_documents d WHERE d.workspace_id = e.workspace_id AND d.entry_id = e.id)
        AND NOT EXISTS (SELECT 1 FROM entry_links l WHERE l.workspace_id = e.workspace_id AND l.derived_entry_id = e.id)
        AND (SELECT count(*) FROM entries o WHERE o.workspace_id = e.workspace_id AND o.amount_cents = e.amount_cents
               AND o.base_currency = e.base_currency AND abs(o.entry_date - e.entry_date) <= 40) = 1
      ORDER BY e.entry_date DESC, e.id DESC LIMIT 2`,
    { replacements: { ws: ws.workspaceId, taken }, type: QueryTypes.SELECT },
  );
  if (entries.length < 2) return;
  const [auto, waiting] = entries;
  const currency = auto.base_currency.trim();
  const xml = demoUbl({
    number: `INV-${auto.entry_date.replace(/-/g, '')}-${auto.id}`,
    issueDate: daysBefore(auto.entry_date, 2),
    currency,
    total: Number(auto.amount_cents),
    supplier: auto.party ?? 'Supplier',
    supplierVat: 'DE811907980',
  });
  await uploadToInbox(actor, {
    workspaceId: ws.workspaceId,
    file: { bytes: xml, fileName: 'peppol-invoice.xml', declaredType: 'application/xml' },
  });
  const waitingCurrency = waiting.base_currency.trim();
  const total = `${formatMinorUnits(Number(waiting.amount_cents), waitingCurrency)} ${waitingCurrency}`;
  const receipt = await makeReceiptPdf({
    title: 'Receipt',
    issuer: waiting.party ?? 'Supplier',
    date: waiting.entry_date,
    lines: [{ description: waiting.description ?? 'Purchase', amount: total }],
    total,
  });
  await uploadToInbox(actor, {
    workspaceId: ws.workspaceId,
    file: { bytes: receipt, fileName: 'receipt-scan.pdf', declaredType: 'application/pdf' },
  });
  const newcomer = demoUbl({
    number: 'BX-2026-0117',
    issueDate: waiting.entry_date,
    currency,
    total: 18_921,
    supplier: 'Bluebox Coworking GmbH',
    supplierVat: 'DE300400500',
  });
  await uploadToInbox(actor, {
    workspaceId: ws.workspaceId,
    file: { bytes: newcomer, fileName: 'bluebox-invoice.xml', declaredType: 'application/xml' },
  });
  await drainExtractions();
}
