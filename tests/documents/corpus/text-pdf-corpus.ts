import { makePdf } from './pdf-makers.js';

/**
 * The labelled text-PDF corpus: invoices and receipts laid out the way invoicing tools built on
 * pdfkit print them (a classic US invoice, a German Rechnung, a payment receipt with stacked
 * columns, a French facture, a stacked-header invoice, a UK tax invoice, a yen receipt, a credit
 * note, a Swiss invoice), each with the values printed on it: the truth the text reader is measured
 * against (total, currency, issue date, number).
 */
export type Layout = 'classic' | 'german' | 'receipt' | 'french' | 'stacked' | 'uk' | 'yen' | 'credit' | 'swiss';

export type TextInvoice = {
  layout: Layout;
  supplier: string;
  customer: string;
  number: string;
  issueDate: string;
  dueDate: string;
  currency: string;
  /** unit prices in minor units */
  lines: { description: string; quantity: number; unit: number }[];
  /** tax rate in percent */
  taxRate: number;
};

export type TextTruth = { totalCents: number; currency: string; issueDate: string; documentNumber: string };

export const netOf = (i: TextInvoice) => i.lines.reduce((s, l) => s + l.quantity * l.unit, 0);
export const taxOf = (i: TextInvoice) => Math.round((netOf(i) * i.taxRate) / 100);
export const truthOf = (i: TextInvoice): TextTruth => ({
  totalCents: netOf(i) + taxOf(i),
  currency: i.currency,
  issueDate: i.issueDate,
  documentNumber: i.number,
});

/* ---------- how each locale prints ---------- */

const group = (digits: string, sep: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
function decimal(minor: number, decimals: number, thousands: string, point: string): string {
  const neg = minor < 0;
  const abs = Math.abs(minor);
  const int = Math.floor(abs / 10 ** decimals).toString();
  const frac = decimals ? point + (abs % 10 ** decimals).toString().padStart(decimals, '0') : '';
  return (neg ? '-' : '') + group(int, thousands) + frac;
}
const usd = (m: number, sym = '$') => `${sym}${decimal(m, 2, ',', '.')}`;
const eurDe = (m: number) => `${decimal(m, 2, '.', ',')} €`;
const eurFr = (m: number) => `${decimal(m, 2, ' ', ',')} €`;
const gbp = (m: number) => `£${decimal(m, 2, ',', '.')}`;
const yen = (m: number) => `¥${decimal(m, 0, ',', '.')}`;
const chf = (m: number) => `CHF ${decimal(m, 2, "'", '.')}`;

const [y, mo, d] = [0, 1, 2];
const parts = (iso: string) => iso.split('-').map(Number);
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const longUs = (iso: string) => `${MONTHS[parts(iso)[mo] - 1]} ${parts(iso)[d]}, ${parts(iso)[y]}`;
const shortUs = (iso: string) => `${MONTHS[parts(iso)[mo] - 1].slice(0, 3)} ${parts(iso)[d]}, ${parts(iso)[y]}`;
const longUk = (iso: string) => `${parts(iso)[d]} ${MONTHS[parts(iso)[mo] - 1]} ${parts(iso)[y]}`;
const dotted = (iso: string) => `${String(parts(iso)[d]).padStart(2, '0')}.${String(parts(iso)[mo]).padStart(2, '0')}.${parts(iso)[y]}`;
const slashedDmy = (iso: string) => `${String(parts(iso)[d]).padStart(2, '0')}/${String(parts(iso)[mo]).padStart(2, '0')}/${parts(iso)[y]}`;

type Doc = PDFKit.PDFDocument;
const at = (doc: Doc, x: number, yPos: number, text: string, size = 10, opts: PDFKit.Mixins.TextOptions = {}) =>
  doc.fontSize(size).text(text, x, yPos, { lineBreak: false, ...opts });
const right = (doc: Doc, x: number, yPos: number, width: number, text: string, size = 10) =>
  doc.fontSize(size).text(text, x, yPos, { width, align: 'right', lineBreak: false });

function itemsTable(doc: Doc, i: TextInvoice, top: number, money: (m: number) => string, heads: string[]): number {
  at(doc, 50, top, heads[0], 9);
  right(doc, 300, top, 60, heads[1], 9);
  right(doc, 370, top, 80, heads[2], 9);
  right(doc, 460, top, 90, heads[3], 9);
  let row = top + 18;
  for (const l of i.lines) {
    at(doc, 50, row, l.description);
    right(doc, 300, row, 60, String(l.quantity));
    right(doc, 370, row, 80, money(l.unit));
    right(doc, 460, row, 90, money(l.quantity * l.unit));
    row += 16;
  }
  return row + 10;
}

function totals(doc: Doc, top: number, rows: [string, string][]): void {
  rows.forEach(([label, value], k) => {
    at(doc, 330, top + k * 18, label, k === rows.length - 1 ? 11 : 10);
    right(doc, 460, top + k * 18, 90, value, k === rows.length - 1 ? 11 : 10);
  });
}

const LAYOUTS: Record<Layout, (doc: Doc, i: TextInvoice) => void> = {
  classic(doc, i) {
    const m = (v: number) => usd(v);
    at(doc, 50, 50, i.supplier, 20);
    at(doc, 420, 50, 'INVOICE', 24);
    at(doc, 50, 80, '1200 Market Street, Suite 400', 9);
    at(doc, 50, 92, 'San Francisco, CA 94103', 9);
    at(doc, 340, 100, 'Invoice Number:');
    right(doc, 440, 100, 110, i.number);
    at(doc, 340, 115, 'Invoice Date:');
    right(doc, 440, 115, 110, longUs(i.issueDate));
    at(doc, 340, 130, 'Due Date:');
    right(doc, 440, 130, 110, longUs(i.dueDate));
    at(doc, 50, 140, 'Bill To:', 10);
    at(doc, 50, 155, i.customer, 11);
    const end = itemsTable(doc, i, 200, m, ['Description', 'Qty', 'Rate', 'Amount']);
    totals(doc, end, [
      ['Subtotal', m(netOf(i))],
      [`Tax (${i.taxRate}%)`, m(taxOf(i))],
      ['Total', m(netOf(i) + taxOf(i))],
      ['Balance Due', m(netOf(i) + taxOf(i))],
    ]);
    at(doc, 50, 760, 'Thank you for your business!', 9);
  },
  german(doc, i) {
    at(doc, 50, 45, `${i.supplier} · Hauptstraße 12 · 10115 Berlin`, 7);
    at(doc, 50, 70, i.customer, 11);
    at(doc, 50, 84, 'Lindenallee 5', 10);
    at(doc, 50, 98, '80331 München', 10);
    at(doc, 360, 70, 'Rechnungsnr.:', 9);
    right(doc, 450, 70, 100, i.number, 9);
    at(doc, 360, 84, 'Rechnungsdatum:', 9);
    right(doc, 450, 84, 100, dotted(i.issueDate), 9);
    at(doc, 360, 98, 'Kundennr.:', 9);
    right(doc, 450, 98, 100, '10042', 9);
    at(doc, 50, 150, `Rechnung ${i.number}`, 16);
    at(doc, 50, 175, 'Sehr geehrte Damen und Herren, wir berechnen Ihnen folgende Leistungen:', 10);
    const end = itemsTable(doc, i, 205, eurDe, ['Bezeichnung', 'Menge', 'Einzelpreis', 'Gesamt']);
    totals(doc, end, [
      ['Nettobetrag', eurDe(netOf(i))],
      [`zzgl. USt. ${i.taxRate} %`, eurDe(taxOf(i))],
      ['Gesamtbetrag', eurDe(netOf(i) + taxOf(i))],
    ]);
    at(doc, 50, end + 80, `Zahlbar bis ${dotted(i.dueDate)} ohne Abzug.`, 10);
    at(doc, 50, 760, `${i.supplier} · USt-IdNr.: DE123456789 · IBAN: DE89 3704 0044 0532 0130 00 · BIC: COBADEFFXXX`, 7);
  },
  receipt(doc, i) {
    const m = (v: number) => (i.currency === 'EUR' ? `€${decimal(v, 2, ',', '.')}` : usd(v));
    at(doc, 50, 60, `Receipt from ${i.supplier}`, 18);
    at(doc, 50, 88, `Receipt #${i.number}`, 10);
    at(doc, 50, 120, 'AMOUNT PAID', 8);
    at(doc, 200, 120, 'DATE PAID', 8);
    at(doc, 370, 120, 'PAYMENT METHOD', 8);
    at(doc, 50, 134, m(netOf(i) + taxOf(i)), 11);
    at(doc, 200, 134, longUs(i.issueDate), 11);
    at(doc, 370, 134, 'Visa - 4242', 11);
    at(doc, 50, 170, 'SUMMARY', 8);
    let row = 188;
    for (const l of i.lines) {
      at(doc, 50, row, `${l.description} × ${l.quantity}`);
      right(doc, 400, row, 150, m(l.quantity * l.unit));
      row += 16;
    }
    if (taxOf(i)) {
      at(doc, 50, row, `Sales tax (${i.taxRate}%)`);
      right(doc, 400, row, 150, m(taxOf(i)));
      row += 16;
    }
    at(doc, 50, row + 6, 'Amount paid', 11);
    right(doc, 400, row + 6, 150, m(netOf(i) + taxOf(i)), 11);
    at(doc, 50, row + 40, `If you have any questions, contact us at billing@${i.supplier.toLowerCase().replace(/[^a-z]/g, '')}.com.`, 9);
  },
  french(doc, i) {
    at(doc, 50, 50, i.supplier, 16);
    at(doc, 50, 72, '12 rue de la Paix, 75002 Paris', 9);
    at(doc, 50, 84, 'SIRET 732 829 320 00074 · TVA FR40303265045', 9);
    at(doc, 400, 50, 'FACTURE', 20);
    at(doc, 330, 110, `Facture n° ${i.number}`, 10);
    at(doc, 330, 125, `Date de facture : ${slashedDmy(i.issueDate)}`, 10);
    at(doc, 330, 140, `Date d'échéance : ${slashedDmy(i.dueDate)}`, 10);
    at(doc, 50, 125, 'Facturé à :', 10);
    at(doc, 50, 140, i.customer, 11);
    const end = itemsTable(doc, i, 190, eurFr, ['Désignation', 'Qté', 'Prix unitaire HT', 'Montant HT']);
    totals(doc, end, [
      ['Total HT', eurFr(netOf(i))],
      [`TVA (${i.taxRate} %)`, eurFr(taxOf(i))],
      ['Total TTC', eurFr(netOf(i) + taxOf(i))],
    ]);
    at(doc, 50, 760, 'IBAN FR14 2004 1010 0505 0001 3M02 606 · Pénalités de retard : 3 fois le taux légal', 7);
  },
  stacked(doc, i) {
    const m = (v: number) => usd(v);
    at(doc, 50, 50, i.supplier, 18);
    at(doc, 50, 74, 'Toronto, ON M5V 2T6 · GST/HST 123456789RT0001', 9);
    at(doc, 50, 110, 'Invoice Number', 9);
    at(doc, 180, 110, 'Invoice Date', 9);
    at(doc, 300, 110, 'Payment Due', 9);
    at(doc, 430, 110, 'Amount Due (CAD)', 9);
    at(doc, 50, 124, i.number, 11);
    at(doc, 180, 124, shortUs(i.issueDate), 11);
    at(doc, 300, 124, shortUs(i.dueDate), 11);
    at(doc, 430, 124, m(netOf(i) + taxOf(i)), 11);
    at(doc, 50, 160, 'BILL TO', 9);
    at(doc, 50, 174, i.customer, 11);
    const end = itemsTable(doc, i, 215, m, ['Items', 'Quantity', 'Price', 'Amount']);
    totals(doc, end, [
      ['Subtotal:', m(netOf(i))],
      [`HST ${i.taxRate}%:`, m(taxOf(i))],
      ['Total:', m(netOf(i) + taxOf(i))],
      ['Amount Due (CAD):', m(netOf(i) + taxOf(i))],
    ]);
  },
  uk(doc, i) {
    at(doc, 50, 50, i.supplier, 18);
    at(doc, 50, 74, '221B Baker Street, London NW1 6XE', 9);
    at(doc, 50, 86, 'VAT Reg No: GB 980 7806 84', 9);
    at(doc, 380, 50, 'TAX INVOICE', 18);
    at(doc, 380, 90, `Invoice No: ${i.number}`, 10);
    at(doc, 380, 105, `Invoice Date: ${longUk(i.issueDate)}`, 10);
    at(doc, 380, 120, `Payment due: ${longUk(i.dueDate)}`, 10);
    at(doc, 50, 120, 'Invoice to', 9);
    at(doc, 50, 134, i.customer, 11);
    const end = itemsTable(doc, i, 190, gbp, ['Description', 'Qty', 'Unit price', 'Net']);
    totals(doc, end, [
      ['Total (excl. VAT)', gbp(netOf(i))],
      [`VAT @ ${i.taxRate}%`, gbp(taxOf(i))],
      ['Total (inc. VAT)', gbp(netOf(i) + taxOf(i))],
    ]);
    at(doc, 50, 760, 'Sort code 60-16-13 · Account 31926819 · IBAN GB29 NWBK 6016 1331 9268 19', 7);
  },
  yen(doc, i) {
    at(doc, 50, 50, i.supplier, 16);
    at(doc, 50, 72, '1-2-3 Ginza, Chuo-ku, Tokyo', 9);
    at(doc, 400, 50, 'RECEIPT', 18);
    at(doc, 400, 80, `No. ${i.number}`, 10);
    at(doc, 400, 95, `Date: ${i.issueDate}`, 10);
    at(doc, 50, 110, `Customer: ${i.customer}`, 10);
    const end = itemsTable(doc, i, 150, yen, ['Item', 'Qty', 'Unit', 'Amount']);
    totals(doc, end, [
      ['Subtotal', yen(netOf(i))],
      [`Consumption tax ${i.taxRate}%`, yen(taxOf(i))],
      ['Total', yen(netOf(i) + taxOf(i))],
    ]);
  },
  credit(doc, i) {
    const m = (v: number) => `€${decimal(v, 2, ',', '.')}`;
    at(doc, 50, 50, i.supplier, 18);
    at(doc, 380, 50, 'CREDIT NOTE', 18);
    at(doc, 380, 85, `Credit Note No: ${i.number}`, 10);
    at(doc, 380, 100, `Date: ${i.issueDate}`, 10);
    at(doc, 380, 115, 'Original invoice: INV-0999', 10);
    at(doc, 50, 100, 'Customer:', 9);
    at(doc, 50, 114, i.customer, 11);
    const end = itemsTable(doc, i, 170, m, ['Description', 'Qty', 'Price', 'Amount']);
    totals(doc, end, [
      ['Subtotal', m(-netOf(i))],
      [`VAT ${i.taxRate}%`, m(-taxOf(i))],
      ['Total credit', m(-(netOf(i) + taxOf(i)))],
    ]);
  },
  swiss(doc, i) {
    at(doc, 50, 50, i.supplier, 16);
    at(doc, 50, 70, 'Bahnhofstrasse 1, 8001 Zürich · CHE-123.456.789 MWST', 8);
    at(doc, 50, 110, i.customer, 11);
    at(doc, 50, 160, `Rechnung Nr. ${i.number}`, 14);
    at(doc, 50, 182, `Datum: ${dotted(i.issueDate)}`, 10);
    at(doc, 250, 182, `Zahlbar bis: ${dotted(i.dueDate)}`, 10);
    const end = itemsTable(doc, i, 215, chf, ['Position', 'Anzahl', 'Preis', 'Betrag']);
    totals(doc, end, [
      ['Zwischensumme', chf(netOf(i))],
      [`MWST ${i.taxRate}%`, chf(taxOf(i))],
      ['Total', chf(netOf(i) + taxOf(i))],
    ]);
    at(doc, 50, 760, 'IBAN CH93 0076 2011 6238 5295 7', 8);
  },
};

export const pdfOf = (i: TextInvoice) => makePdf((doc) => LAYOUTS[i.layout](doc, i));

const L = (description: string, quantity: number, unit: number) => ({ description, quantity, unit });

export const TEXT_PDF_CORPUS: TextInvoice[] = [
  {
    layout: 'classic',
    supplier: 'Brightside Design Co.',
    customer: 'Harbor Foods LLC',
    number: 'INV-1001',
    issueDate: '2026-01-05',
    dueDate: '2026-02-04',
    currency: 'USD',
    taxRate: 8.25,
    lines: [L('Logo design', 1, 120000), L('Brand guide', 1, 45000)],
  },
  {
    layout: 'classic',
    supplier: 'Pixel Forge Studio',
    customer: 'Greenline Transit',
    number: 'PF-2026-017',
    issueDate: '2026-03-18',
    dueDate: '2026-04-17',
    currency: 'USD',
    taxRate: 0,
    lines: [L('Web development (hours)', 42, 9500)],
  },
  {
    layout: 'classic',
    supplier: 'Summit Legal Partners',
    customer: 'Oakridge Capital',
    number: '000438',
    issueDate: '2026-11-30',
    dueDate: '2026-12-30',
    currency: 'USD',
    taxRate: 7,
    lines: [L('Contract review', 6, 35000), L('Filing fees', 1, 12550)],
  },
  {
    layout: 'german',
    supplier: 'Schreinerei Holzmann GmbH',
    customer: 'Bäckerei Sonnenschein',
    number: 'RE-2026-104',
    issueDate: '2026-01-12',
    dueDate: '2026-01-26',
    currency: 'EUR',
    taxRate: 19,
    lines: [L('Ladentheke Eiche', 1, 245000), L('Montage (Std.)', 6, 6500)],
  },
  {
    layout: 'german',
    supplier: 'IT-Service Krause',
    customer: 'Praxis Dr. Weber',
    number: '2026-0057',
    issueDate: '2026-05-04',
    dueDate: '2026-05-18',
    currency: 'EUR',
    taxRate: 19,
    lines: [L('Wartungsvertrag Mai', 1, 29900)],
  },
  {
    layout: 'german',
    supplier: 'Druckerei Blau KG',
    customer: 'Verein Lauffreunde e.V.',
    number: 'RE-26-1187',
    issueDate: '2026-09-21',
    dueDate: '2026-10-05',
    currency: 'EUR',
    taxRate: 7,
    lines: [L('Flyer A5, 5000 Stk.', 1, 18950), L('Plakate A1', 20, 1250)],
  },
  {
    layout: 'receipt',
    supplier: 'Northwind Coffee',
    customer: 'jane@example.com',
    number: '2051-4471',
    issueDate: '2026-02-14',
    dueDate: '2026-02-14',
    currency: 'USD',
    taxRate: 0,
    lines: [L('Monthly subscription', 1, 2450)],
  },
  {
    layout: 'receipt',
    supplier: 'Cloudnest Hosting',
    customer: 'ops@harbor.example',
    number: '1988-3301',
    issueDate: '2026-06-01',
    dueDate: '2026-06-01',
    currency: 'USD',
    taxRate: 10,
    lines: [L('Pro plan', 1, 4900), L('Extra storage', 3, 500)],
  },
  {
    layout: 'receipt',
    supplier: 'Velo Rentals',
    customer: 'tom@example.org',
    number: '7310-0042',
    issueDate: '2026-08-09',
    dueDate: '2026-08-09',
    currency: 'EUR',
    taxRate: 0,
    lines: [L('City bike, 3 days', 1, 4500)],
  },
  {
    layout: 'french',
    supplier: 'Atelier Lumière',
    customer: 'Hôtel du Parc',
    number: 'F-2026-0042',
    issueDate: '2026-01-23',
    dueDate: '2026-02-22',
    currency: 'EUR',
    taxRate: 20,
    lines: [L('Luminaires sur mesure', 4, 32500), L('Pose', 1, 48000)],
  },
  {
    layout: 'french',
    supplier: 'Conseil & Stratégie SAS',
    customer: 'Mairie de Lyon',
    number: 'FA26-318',
    issueDate: '2026-07-03',
    dueDate: '2026-08-02',
    currency: 'EUR',
    taxRate: 20,
    lines: [L('Mission de conseil', 10, 90000)],
  },
  {
    layout: 'stacked',
    supplier: 'Maple Leaf Cleaning',
    customer: 'Queen St. Dental',
    number: 'INV-000123',
    issueDate: '2026-01-05',
    dueDate: '2026-02-04',
    currency: 'CAD',
    taxRate: 13,
    lines: [L('Office cleaning', 4, 18000), L('Window cleaning', 1, 9500)],
  },
  {
    layout: 'stacked',
    supplier: 'Northern Code Works',
    customer: 'Lakeside Outfitters',
    number: 'INV-000311',
    issueDate: '2026-10-14',
    dueDate: '2026-11-13',
    currency: 'CAD',
    taxRate: 13,
    lines: [L('App maintenance', 1, 150000)],
  },
  {
    layout: 'uk',
    supplier: 'Thames Analytics Ltd',
    customer: 'Riverside Council',
    number: '1001',
    issueDate: '2026-02-02',
    dueDate: '2026-03-04',
    currency: 'GBP',
    taxRate: 20,
    lines: [L('Data audit', 5, 60000)],
  },
  {
    layout: 'uk',
    supplier: 'Cotswold Catering',
    customer: 'Bath Rugby Club',
    number: 'CC-4471',
    issueDate: '2026-12-12',
    dueDate: '2026-12-26',
    currency: 'GBP',
    taxRate: 20,
    lines: [L('Buffet for 80', 80, 1450), L('Staff (hours)', 12, 1800)],
  },
  {
    layout: 'yen',
    supplier: 'Ginza Stationery',
    customer: 'K. Tanaka',
    number: '000123',
    issueDate: '2026-04-01',
    dueDate: '2026-04-01',
    currency: 'JPY',
    taxRate: 10,
    lines: [L('Fountain pen', 1, 12000), L('Ink', 3, 1500)],
  },
  {
    layout: 'yen',
    supplier: 'Kyoto Tea House',
    customer: 'A. Sato',
    number: '004410',
    issueDate: '2026-09-30',
    dueDate: '2026-09-30',
    currency: 'JPY',
    taxRate: 8,
    lines: [L('Matcha 100g', 4, 2800)],
  },
  {
    layout: 'credit',
    supplier: 'Brightside Design Co.',
    customer: 'Harbor Foods LLC',
    number: 'CN-0042',
    issueDate: '2026-03-01',
    dueDate: '2026-03-01',
    currency: 'EUR',
    taxRate: 19,
    lines: [L('Refund, brand guide', 1, 12605)],
  },
  {
    layout: 'credit',
    supplier: 'Velo Rentals',
    customer: 'tom@example.org',
    number: 'CN-2026-9',
    issueDate: '2026-08-20',
    dueDate: '2026-08-20',
    currency: 'EUR',
    taxRate: 0,
    lines: [L('Returned early', 1, 1500)],
  },
  {
    layout: 'swiss',
    supplier: 'Alpen Präzision AG',
    customer: 'Uhrenatelier Meier',
    number: '2026-17',
    issueDate: '2026-05-15',
    dueDate: '2026-06-14',
    currency: 'CHF',
    taxRate: 8.1,
    lines: [L('Spindel', 3, 41150), L('Kalibrierung', 1, 25000)],
  },
  {
    layout: 'swiss',
    supplier: 'Berner Treuhand GmbH',
    customer: 'Café Bundesplatz',
    number: '2026-244',
    issueDate: '2026-10-31',
    dueDate: '2026-11-30',
    currency: 'CHF',
    taxRate: 8.1,
    lines: [L('Buchhaltung Oktober', 1, 98000)],
  },
  {
    layout: 'classic',
    supplier: 'Redwood Landscaping',
    customer: 'Hillcrest HOA',
    number: 'RL-5520',
    issueDate: '2026-06-30',
    dueDate: '2026-07-30',
    currency: 'USD',
    taxRate: 6.5,
    lines: [L('Lawn care, June', 1, 64000), L('Irrigation repair', 1, 21075)],
  },
];
