import { ibanOf } from './amounts.js';
import { CREDIT_NOTE_CODES, currencyOf, dateOf, setAmount } from './einvoice-common.js';
import { emptyFields, setField, type ReadFields } from './fields.js';
import { all, at, attr, text, type XmlNode } from './xml.js';

/**
 * UBL 2.1 Invoice and CreditNote as EN 16931 and Peppol BIS Billing 3.0 use them (business terms):
 * BT-1 cbc:ID, BT-2 cbc:IssueDate, BT-3 the type code (CreditNote root, or an Invoice with a
 * credit-note code), BT-5 cbc:DocumentCurrencyCode, BT-9 cbc:DueDate (a CreditNote states it as
 * cac:PaymentMeans/cbc:PaymentDueDate), BT-109/112 cac:LegalMonetaryTotal's TaxExclusiveAmount
 * and TaxInclusiveAmount, BT-110 the cac:TaxTotal/cbc:TaxAmount in the document currency, BT-27/28
 * the seller's registration or trading name, BT-31/32 its tax ids, BT-84 the payee account (an
 * IBAN), BT-44/48 the buyer's name and VAT id.
 */
function partyOf(party: unknown): { name: string | null; taxId: string | null } {
  const name = text(at(party, 'PartyLegalEntity', 'RegistrationName')) ?? text(at(party, 'PartyName', 'Name'));
  const schemes = all(party, 'PartyTaxScheme');
  const vat = schemes.find((s) => text(at(s, 'TaxScheme', 'ID'))?.toUpperCase() === 'VAT') ?? schemes[0];
  return { name, taxId: text(at(vat, 'CompanyID')) };
}

export function readUbl(root: XmlNode, kind: 'Invoice' | 'CreditNote'): ReadFields {
  const read = emptyFields();
  const typeCode = text(at(root, kind === 'Invoice' ? 'InvoiceTypeCode' : 'CreditNoteTypeCode'));
  const isCredit = kind === 'CreditNote' || (typeCode !== null && CREDIT_NOTE_CODES.has(typeCode));
  setField(read, 'documentType', isCredit ? 'CREDIT_NOTE' : 'BASIS', 1);
  setField(read, 'documentNumber', text(at(root, 'ID')), 1);
  setField(read, 'issueDate', dateOf(text(at(root, 'IssueDate')), 'ISO'), 1);
  const due = text(at(root, 'DueDate')) ?? text(at(root, 'PaymentMeans', 'PaymentDueDate'));
  setField(read, 'dueDate', dateOf(due, 'ISO'), 1);
  const currency = currencyOf(text(at(root, 'DocumentCurrencyCode')));
  setField(read, 'currency', currency, 1);
  const totals = at(root, 'LegalMonetaryTotal');
  setAmount(read, 'totalCents', text(at(totals, 'TaxInclusiveAmount')), currency, isCredit);
  setAmount(read, 'netCents', text(at(totals, 'TaxExclusiveAmount')), currency, isCredit);
  const taxTotals = all(root, 'TaxTotal');
  const tax = taxTotals.map((t) => at(t, 'TaxAmount')).find((a) => attr(a, 'currencyID') === currency) ?? at(taxTotals[0], 'TaxAmount');
  setAmount(read, 'taxCents', text(tax), currency, isCredit);
  const supplier = partyOf(at(root, 'AccountingSupplierParty', 'Party'));
  setField(read, 'supplier.name', supplier.name, 1);
  setField(read, 'supplier.taxId', supplier.taxId, 1);
  const iban = all(root, 'PaymentMeans', 'PayeeFinancialAccount', 'ID')
    .map((n) => ibanOf(text(n)))
    .find((v) => v !== null);
  setField(read, 'supplier.iban', iban, 1);
  const customer = partyOf(at(root, 'AccountingCustomerParty', 'Party'));
  setField(read, 'customer.name', customer.name, 1);
  setField(read, 'customer.taxId', customer.taxId, 1);
  return read;
}
