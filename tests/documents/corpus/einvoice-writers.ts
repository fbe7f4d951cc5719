/**
 * E-invoices written for the tests from the standards (EN 16931 business terms in their UBL 2.1
 * and UN/CEFACT CII D16B syntax bindings), from a plain description of the invoice: the
 * description is the truth the reader is measured against.
 */
export type Party = { name: string; tradingName?: string; vatId?: string; taxRegistrationFc?: string; country: string };

export type EInvoice = {
  number: string;
  credit?: boolean;
  /** UNTDID 1001 type code when not the default (380 invoice / 381 credit note) */
  typeCode?: string;
  issueDate: string;
  dueDate?: string;
  currency: string;
  /** the tax total also stated in an accounting currency (BT-6 / BT-111) */
  taxCurrency?: { code: string; taxAmount: string };
  seller: Party;
  buyer: Party;
  iban?: string;
  /** decimal strings as the document writes them */
  lines: { name: string; quantity: string; price: string; net: string; vatRate: string }[];
  net: string;
  tax: string;
  total: string;
  prepaid?: string;
  payable: string;
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function ublParty(p: Party): string {
  return `<cac:Party>
      <cbc:EndpointID schemeID="EM">billing@${esc(p.name.toLowerCase().replace(/[^a-z]+/g, ''))}.example</cbc:EndpointID>
      ${p.tradingName ? `<cac:PartyName><cbc:Name>${esc(p.tradingName)}</cbc:Name></cac:PartyName>` : ''}
      <cac:PostalAddress><cac:Country><cbc:IdentificationCode>${p.country}</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
      ${p.vatId ? `<cac:PartyTaxScheme><cbc:CompanyID>${esc(p.vatId)}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>` : ''}
      ${p.taxRegistrationFc ? `<cac:PartyTaxScheme><cbc:CompanyID>${esc(p.taxRegistrationFc)}</cbc:CompanyID><cac:TaxScheme><cbc:ID>FC</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>` : ''}
      <cac:PartyLegalEntity><cbc:RegistrationName>${esc(p.name)}</cbc:RegistrationName></cac:PartyLegalEntity>
    </cac:Party>`;
}

/** UBL 2.1 Invoice or CreditNote, Peppol BIS Billing 3.0 customization. */
export function ubl(inv: EInvoice): string {
  const root = inv.credit ? 'CreditNote' : 'Invoice';
  const cur = inv.currency;
  const lineTag = inv.credit ? 'CreditNoteLine' : 'InvoiceLine';
  const qtyTag = inv.credit ? 'CreditedQuantity' : 'InvoicedQuantity';
  const due = inv.dueDate ? (inv.credit ? '' : `<cbc:DueDate>${inv.dueDate}</cbc:DueDate>`) : '';
  const payment =
    inv.iban || (inv.credit && inv.dueDate)
      ? `<cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>${inv.credit && inv.dueDate ? `<cbc:PaymentDueDate>${inv.dueDate}</cbc:PaymentDueDate>` : ''}${
          inv.iban ? `<cac:PayeeFinancialAccount><cbc:ID>${inv.iban}</cbc:ID></cac:PayeeFinancialAccount>` : ''
        }</cac:PaymentMeans>`
      : '';
  const taxCurrency = inv.taxCurrency
    ? `<cac:TaxTotal><cbc:TaxAmount currencyID="${inv.taxCurrency.code}">${inv.taxCurrency.taxAmount}</cbc:TaxAmount></cac:TaxTotal>`
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<${root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:${root}-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>
  <cbc:ID>${esc(inv.number)}</cbc:ID>
  <cbc:IssueDate>${inv.issueDate}</cbc:IssueDate>
  ${due}
  <cbc:${root}TypeCode>${inv.typeCode ?? (inv.credit ? '381' : '380')}</cbc:${root}TypeCode>
  <cbc:DocumentCurrencyCode>${cur}</cbc:DocumentCurrencyCode>
  ${inv.taxCurrency ? `<cbc:TaxCurrencyCode>${inv.taxCurrency.code}</cbc:TaxCurrencyCode>` : ''}
  <cbc:BuyerReference>PO-${esc(inv.number)}</cbc:BuyerReference>
  <cac:AccountingSupplierParty>${ublParty(inv.seller)}</cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>${ublParty(inv.buyer)}</cac:AccountingCustomerParty>
  ${payment}
  ${taxCurrency}
  <cac:TaxTotal>
    <cbc:TaxAmount currencyID="${cur}">${inv.tax}</cbc:TaxAmount>
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="${cur}">${inv.net}</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount currencyID="${cur}">${inv.net}</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="${cur}">${inv.total}</cbc:TaxInclusiveAmount>
    ${inv.prepaid ? `<cbc:PrepaidAmount currencyID="${cur}">${inv.prepaid}</cbc:PrepaidAmount>` : ''}
    <cbc:PayableAmount currencyID="${cur}">${inv.payable}</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  ${inv.lines
    .map(
      (l, i) => `<cac:${lineTag}>
    <cbc:ID>${i + 1}</cbc:ID>
    <cbc:${qtyTag} unitCode="C62">${l.quantity}</cbc:${qtyTag}>
    <cbc:LineExtensionAmount currencyID="${cur}">${l.net}</cbc:LineExtensionAmount>
    <cac:Item><cbc:Name>${esc(l.name)}</cbc:Name>
      <cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>${l.vatRate}</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory>
    </cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="${cur}">${l.price}</cbc:PriceAmount></cac:Price>
  </cac:${lineTag}>`,
    )
    .join('\n  ')}
</${root}>
`;
}

const ciiDate = (d: string) => `<udt:DateTimeString format="102">${d.replace(/-/g, '')}</udt:DateTimeString>`;

function ciiParty(tag: string, p: Party): string {
  return `<ram:${tag}>
        <ram:Name>${esc(p.name)}</ram:Name>
        <ram:PostalTradeAddress><ram:CountryID>${p.country}</ram:CountryID></ram:PostalTradeAddress>
        ${p.taxRegistrationFc ? `<ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">${esc(p.taxRegistrationFc)}</ram:ID></ram:SpecifiedTaxRegistration>` : ''}
        ${p.vatId ? `<ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">${esc(p.vatId)}</ram:ID></ram:SpecifiedTaxRegistration>` : ''}
      </ram:${tag}>`;
}

/** UN/CEFACT CII D16B: Factur-X / ZUGFeRD EN 16931 profile, or XRechnung (its CIUS guideline id). */
export function cii(inv: EInvoice, guideline: 'FACTURX' | 'XRECHNUNG' = 'FACTURX'): string {
  const cur = inv.currency;
  const id =
    guideline === 'XRECHNUNG' ? 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0' : 'urn:cen.eu:en16931:2017';
  return `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
  xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocumentContext>
    <ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>${id}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>
  </rsm:ExchangedDocumentContext>
  <rsm:ExchangedDocument>
    <ram:ID>${esc(inv.number)}</ram:ID>
    <ram:TypeCode>${inv.typeCode ?? (inv.credit ? '381' : '380')}</ram:TypeCode>
    <ram:IssueDateTime>${ciiDate(inv.issueDate)}</ram:IssueDateTime>
  </rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    ${inv.lines
      .map(
        (l, i) => `<ram:IncludedSupplyChainTradeLineItem>
      <ram:AssociatedDocumentLineDocument><ram:LineID>${i + 1}</ram:LineID></ram:AssociatedDocumentLineDocument>
      <ram:SpecifiedTradeProduct><ram:Name>${esc(l.name)}</ram:Name></ram:SpecifiedTradeProduct>
      <ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>${l.price}</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>
      <ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="C62">${l.quantity}</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>
      <ram:SpecifiedLineTradeSettlement>
        <ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>${l.vatRate}</ram:RateApplicablePercent></ram:ApplicableTradeTax>
        <ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>${l.net}</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation>
      </ram:SpecifiedLineTradeSettlement>
    </ram:IncludedSupplyChainTradeLineItem>`,
      )
      .join('\n    ')}
    <ram:ApplicableHeaderTradeAgreement>
      <ram:BuyerReference>${guideline === 'XRECHNUNG' ? '04011000-12345-03' : `PO-${esc(inv.number)}`}</ram:BuyerReference>
      ${ciiParty('SellerTradeParty', inv.seller)}
      ${ciiParty('BuyerTradeParty', inv.buyer)}
    </ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeDelivery/>
    <ram:ApplicableHeaderTradeSettlement>
      ${inv.taxCurrency ? `<ram:TaxCurrencyCode>${inv.taxCurrency.code}</ram:TaxCurrencyCode>` : ''}
      <ram:InvoiceCurrencyCode>${cur}</ram:InvoiceCurrencyCode>
      ${
        inv.iban
          ? `<ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>58</ram:TypeCode><ram:PayeePartyCreditorFinancialAccount><ram:IBANID>${inv.iban}</ram:IBANID></ram:PayeePartyCreditorFinancialAccount></ram:SpecifiedTradeSettlementPaymentMeans>`
          : ''
      }
      <ram:ApplicableTradeTax><ram:CalculatedAmount>${inv.tax}</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>${inv.net}</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>${inv.lines[0].vatRate}</ram:RateApplicablePercent></ram:ApplicableTradeTax>
      ${inv.dueDate ? `<ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime>${ciiDate(inv.dueDate)}</ram:DueDateDateTime></ram:SpecifiedTradePaymentTerms>` : ''}
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:LineTotalAmount>${inv.net}</ram:LineTotalAmount>
        <ram:TaxBasisTotalAmount>${inv.net}</ram:TaxBasisTotalAmount>
        <ram:TaxTotalAmount currencyID="${cur}">${inv.tax}</ram:TaxTotalAmount>
        ${inv.taxCurrency ? `<ram:TaxTotalAmount currencyID="${inv.taxCurrency.code}">${inv.taxCurrency.taxAmount}</ram:TaxTotalAmount>` : ''}
        <ram:GrandTotalAmount>${inv.total}</ram:GrandTotalAmount>
        ${inv.prepaid ? `<ram:TotalPrepaidAmount>${inv.prepaid}</ram:TotalPrepaidAmount>` : ''}
        <ram:DuePayableAmount>${inv.payable}</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
`;
}
