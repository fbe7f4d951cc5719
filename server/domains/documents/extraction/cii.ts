import { ibanOf } from './amounts.js';
import { CREDIT_NOTE_CODES, currencyOf, dateOf, setAmount } from './einvoice-common.js';
import { emptyFields, setField, type ReadFields } from './fields.js';
import { all, at, attr, text, type XmlNode } from './xml.js';

/**
 * UN/CEFACT Cross Industry Invoice (D16B) as EN 16931 uses it: Factur-X / ZUGFeRD 2.x (profiles
 * EN 16931 and above) and XRechnung's CII syntax. BT-1 rsm:ExchangedDocument/ram:ID, BT-3
 * ram:TypeCode, BT-2 its IssueDateTime (format 102), BT-5 ram:InvoiceCurrencyCode, BT-9 the
 * payment terms' DueDateDateTime, BT-109/110/112 the header monetary summation's
 * TaxBasisTotalAmount, TaxTotalAmount (in the invoice currency) and GrandTotalAmount, BT-27 /
 * BT-44 the seller's and buyer's ram:Name, BT-31/48 their tax registrations (schemeID VA, else
 * FC), BT-84 the creditor account's IBANID.
 */
function dateTime(node: unknown): string | null {
  const s = at(node, 'DateTimeString');
  const format = attr(s, 'format');
  return format === null || format === '102' ? dateOf(text(s), '102') : null;
}

function partyOf(party: unknown): { name: string | null; taxId: string | null } {
  const regs = all(party, 'SpecifiedTaxRegistration', 'ID');
  const vat = regs.find((r) => attr(r, 'schemeID') === 'VA') ?? regs.find((r) => attr(r, 'schemeID') === 'FC') ?? regs[0];
  return { name: text(at(party, 'Name')), taxId: text(vat) };
}

export function readCii(root: XmlNode): ReadFields {
  const read = emptyFields();
  const doc = at(root, 'ExchangedDocument');
  const typeCode = text(at(doc, 'TypeCode'));
  const isCredit = typeCode !== null && CREDIT_NOTE_CODES.has(typeCode);
  setField(read, 'documentType', isCredit ? 'CREDIT_NOTE' : 'BASIS', 1);
  setField(read, 'documentNumber', text(at(doc, 'ID')), 1);
  setField(read, 'issueDate', dateTime(at(doc, 'IssueDateTime')), 1);
  const trade = at(root, 'SupplyChainTradeTransaction');
  const agreement = at(trade, 'ApplicableHeaderTradeAgreement');
  const settlement = at(trade, 'ApplicableHeaderTradeSettlement');
  const currency = currencyOf(text(at(settlement, 'InvoiceCurrencyCode')));
  setField(read, 'currency', currency, 1);
  const due = all(settlement, 'SpecifiedTradePaymentTerms', 'DueDateDateTime')
    .map(dateTime)
    .find((d) => d !== null);
  setField(read, 'dueDate', due, 1);
  const sums = at(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  setAmount(read, 'totalCents', text(at(sums, 'GrandTotalAmount')), currency, isCredit);
  setAmount(read, 'netCents', text(at(sums, 'TaxBasisTotalAmount')), currency, isCredit);
  const taxes = all(sums, 'TaxTotalAmount');
  const tax = taxes.find((t) => attr(t, 'currencyID') === currency) ?? taxes.find((t) => attr(t, 'currencyID') === null);
  setAmount(read, 'taxCents', text(tax), currency, isCredit);
  const seller = partyOf(at(agreement, 'SellerTradeParty'));
  setField(read, 'supplier.name', seller.name, 1);
  setField(read, 'supplier.taxId', seller.taxId, 1);
  const iban = all(settlement, 'SpecifiedTradeSettlementPaymentMeans', 'PayeePartyCreditorFinancialAccount', 'IBANID')
    .map((n) => ibanOf(text(n)))
    .find((v) => v !== null);
  setField(read, 'supplier.iban', iban, 1);
  const buyer = partyOf(at(agreement, 'BuyerTradeParty'));
  setField(read, 'customer.name', buyer.name, 1);
  setField(read, 'customer.taxId', buyer.taxId, 1);
  return read;
}
