import { currencyExponent } from '../../../lib/money.js';
import { ibanOf } from './amounts.js';
import { emptyFields, setField, type ReadFields } from './fields.js';
import { amountsIn, datesIn, KNOWN_CODES, toMinor, withoutDates, type Amount } from './text-values.js';

/**
 * Fields of an invoice or receipt from its text (a PDF's text layer, or OCR): label-driven, with a
 * confidence per field below 1 (text is never exact). A line is one visual line; its columns are
 * separated by tabs. `size` (font size) helps find the issuer's name at the top when known.
 */
export type TextLine = { text: string; size?: number };

const NET =
  /\b(sub-?total|net amount|net total|total net|amount before tax|total excl|excl\.? (?:vat|tax)|zwischensumme|nettobetrag|summe netto|netto|total ht|montant ht|sous-total)\b/i;
const TAX_WORD = /\b(vat|tax|gst|hst|mwst|ust|umsatzsteuer|mehrwertsteuer|tva|iva|btw|sales tax)\b/i;
const NOT_TAX = /\b(id|no|nr|number|reg|registration|invoice|nummer|ident)\b|ust-id|steuernummer/i;
const TOTAL_STRONG =
  /\b(amount due|balance due|total due|grand total|gesamtbetrag|rechnungsbetrag|endbetrag|zu zahlen|zahlbetrag|total ttc|montant total|net à payer|amount payable|total to pay|total amount|invoice total|total incl|gesamtsumme|amount paid|total paid)\b/i;
const TOTAL_WEAK = /\b(total|summe|betrag|montant|importe|totale)\b/i;
const TITLE =
  /^\s*(tax invoice|invoice|rechnung|receipt|quittung|facture|factura|fattura|credit note|credit memo|gutschrift|avoir|bill|kassenbon|beleg)\s*$/i;
const CREDIT = /\b(credit note|credit memo|gutschrift|avoir|nota de crédito|rechnungskorrektur)\b/i;
const INVOICE_WORD = /\b(invoice|rechnung|receipt|quittung|facture|factura|fattura|bill)\b/i;
const NUMBER_LABEL =
  /\b(?:invoice|rechnungs|rechnung|facture|factura|receipt|beleg|bill|credit note|gutschrift|order|document|doc)\s*(?:no\.?|nr\.?|number|num(?:ber|éro)?|nummer|n°|#|id)?\s*[:#.]?\s*(?:#\s*)?([A-Z0-9][A-Z0-9\-/._]*)/gi;
const BARE_NUMBER_LABEL = /^\s*(?:no\.?|nr\.?|number|nummer|n°|#|ref(?:erence)?\.?)\s*[:#]?\s*([A-Z0-9][A-Z0-9\-/._]*)/i;
const ISSUE_LABEL =
  /\b(invoice date|date of issue|issue date|issued on|issued|rechnungsdatum|belegdatum|datum|date de facture|date d'émission|date paid|receipt date|fecha|date)\b/i;
const DUE_LABEL = /\b(due date|payment due|due on|due by|due|fällig(?:keitsdatum)?|zahlbar bis|zahlungsziel|échéance|pay by|payable by)\b/i;
const FROM_LABEL = /^\s*(from|seller|supplier|vendor|issued by|billed by|lieferant|verkäufer|émetteur)\s*:?\s*(.*)$/i;
const TO_LABEL =
  /^\s*(bill to|billed to|invoice to|sold to|customer|client|buyer|to|rechnungsempfänger|kunde|empfänger|facturé à|factura a)\s*:?\s*(.*)$/i;
const TAXID_LABEL =
  /\b(vat|ust|tva|btw|iva|tax|gst|abn|uid|steuer)[\s.-]*(id|no|nr|number|reg|registration|identification|idnr|nummer)?\b/i;
const CUSTOMER_CONTEXT = /\b(customer|client|buyer|kunde|bill to|billed to|empfänger|acheteur)\b/i;

const hasDigit = (s: string) => /\d/.test(s);
const cells = (line: string) =>
  line
    .split('\t')
    .map((c) => c.trim())
    .filter(Boolean);

type Found<T> = { value: T; confidence: number } | null;

function findNumber(lines: string[]): Found<string> {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    for (const m of line.matchAll(NUMBER_LABEL)) {
      const token = m[1].replace(/[.,:;]+$/, '');
      if (hasDigit(token) && datesIn(token, false).length === 0) return { value: token, confidence: 0.85 };
      // the label alone (a value below it, or in the next column that did not follow)
      if (/^(no|nr|number|nummer|#)?$/i.test(token) || /number|nummer|no\.?|nr\.?|#|n°/i.test(m[0])) {
        const rest = line.slice((m.index ?? 0) + m[0].length).trim();
        if (!rest && i + 1 < lines.length) {
          const next = cells(lines[i + 1])[0]?.replace(/^#\s*/, '');
          if (next && hasDigit(next) && /^[A-Z0-9][A-Z0-9\-/._]*$/i.test(next) && datesIn(next, false).length === 0)
            return { value: next, confidence: 0.7 };
        }
      }
    }
  }
  for (const line of lines) {
    const m = BARE_NUMBER_LABEL.exec(line);
    if (m && hasDigit(m[1])) return { value: m[1].replace(/[.,:;]+$/, ''), confidence: 0.6 };
  }
  return null;
}

function findDate(lines: string[], label: RegExp, exclude: RegExp | null, monthFirst: boolean): Found<string> {
  for (let i = 0; i < lines.length; i++) {
    const m = label.exec(lines[i]);
    if (!m) continue;
    // "Datum: … Zahlbar bis: …": the date between the label and the excluded label that follows it
    const ex = exclude?.exec(lines[i]);
    if (ex && ex.index <= m.index) continue;
    const after = lines[i].slice(m.index + m[0].length, ex ? ex.index : undefined);
    const here = datesIn(after, monthFirst)[0];
    if (here) return { value: here.date, confidence: here.sure ? 0.9 : 0.6 };
    const below =
      i + 1 < lines.length && !/[a-z]{4,}/i.test(withoutDates(lines[i + 1]).replace(/\b[A-Za-zé]{3,9}\.?\s/g, ''))
        ? datesIn(lines[i + 1], monthFirst)[0]
        : undefined;
    if (below) return { value: below.date, confidence: below.sure ? 0.75 : 0.5 };
  }
  return null;
}

type AmountLine = { kind: 'NET' | 'TAX' | 'TOTAL'; strength: number; amount: Amount; index: number };

const INCLUDING = /\b(incl|inc|inkl|including|ttc|brutto)\b/i;

function classify(line: string): { kind: 'NET' | 'TAX' | 'TOTAL'; strength: number } | null {
  const totalWord = TOTAL_STRONG.test(line) || TOTAL_WEAK.test(line);
  if (totalWord && INCLUDING.test(line)) return { kind: 'TOTAL', strength: 2 };
  if (NET.test(line)) return { kind: 'NET', strength: 1 };
  if (TOTAL_STRONG.test(line)) return { kind: 'TOTAL', strength: 2 };
  if (TAX_WORD.test(line) && !NOT_TAX.test(line)) return { kind: 'TAX', strength: 1 };
  if (TOTAL_WEAK.test(line)) return { kind: 'TOTAL', strength: 1 };
  return null;
}

function amountLines(lines: string[], docCodes: Set<string>): AmountLine[] {
  const out: AmountLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    const kind = classify(lines[i]);
    if (!kind) continue;
    let amounts = amountsIn(withoutDates(lines[i]).replace(/\d+(?:[.,]\d+)?\s?%/g, ' '), docCodes);
    if (amounts.length === 0 && i + 1 < lines.length && !/[a-z]{3,}/i.test(lines[i + 1].replace(/\b[A-Z]{3}\b/g, '')))
      amounts = amountsIn(lines[i + 1], docCodes); // the value under its label
    const last = amounts[amounts.length - 1];
    if (last) out.push({ ...kind, amount: last, index: i });
  }
  return out;
}

/** The document's currency codes (three capitals that are a known code). */
function codesIn(lines: string[]): Set<string> {
  const codes = new Set<string>();
  for (const line of lines) for (const m of line.matchAll(/\b([A-Z]{3})\b/g)) if (KNOWN_CODES.has(m[1])) codes.add(m[1]);
  return codes;
}

function findTaxIds(lines: string[]): { supplier: Found<string>; customer: Found<string> } {
  let supplier: Found<string> = null;
  let customer: Found<string> = null;
  let customerBlock = 0;
  for (const line of lines) {
    if (CUSTOMER_CONTEXT.test(line)) customerBlock = 4;
    else if (customerBlock > 0) customerBlock--;
    const label = TAXID_LABEL.exec(line);
    if (!label) continue;
    const after = line.slice((label.index ?? 0) + label[0].length).replace(/^[\s:.#-]+/, '');
    const m = /^([A-Z]{2}[\s]?[0-9A-Z][0-9A-Z .-]{5,15}[0-9A-Z]|\d[\d .-]{6,14}\d)/.exec(after);
    if (!m || !hasDigit(m[1])) continue;
    const value = m[1].replace(/[\s.-]/g, '');
    if (customerBlock > 0 || CUSTOMER_CONTEXT.test(line)) customer ??= { value, confidence: 0.7 };
    else supplier ??= { value, confidence: 0.8 };
  }
  return { supplier, customer };
}

function findIban(lines: string[]): Found<string> {
  for (const line of lines) {
    for (const m of line.matchAll(/\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]){10,32}/g)) {
      const chars = m[0];
      for (let end = chars.length; end >= 14; end--) {
        const iban = ibanOf(chars.slice(0, end));
        if (iban) return { value: iban, confidence: 0.95 };
      }
    }
  }
  return null;
}

const isNameLike = (s: string) =>
  /[A-Za-zÀ-ÿ]{2}/.test(s) &&
  !TITLE.test(s) &&
  !/[:@]/.test(s) &&
  datesIn(s, false).length === 0 &&
  !/^\+?[\d\s()/-]+$/.test(s) &&
  s.length <= 120;

function findNames(lines: TextLine[]): { supplier: Found<string>; customer: Found<string> } {
  let supplier: Found<string> = null;
  let customer: Found<string> = null;
  const texts = lines.map((l) => l.text);
  for (let i = 0; i < texts.length; i++) {
    const from = FROM_LABEL.exec(texts[i]);
    if (from && !supplier) {
      const v = cells(from[2])[0] ?? cells(texts[i + 1] ?? '')[0];
      if (v && isNameLike(v)) supplier = { value: v, confidence: 0.75 };
    }
    const to = TO_LABEL.exec(texts[i]);
    if (to && !customer) {
      const v = cells(to[2])[0] ?? cells(texts[i + 1] ?? '')[0];
      if (v && isNameLike(v)) customer = { value: v, confidence: 0.7 };
    }
  }
  if (!supplier) {
    // the issuer heads the document: the largest text of the first lines that is not the title
    const top = lines.slice(0, 8).filter((l) => isNameLike(cells(l.text)[0] ?? '') && !TO_LABEL.test(l.text));
    const sized = top.some((l) => l.size !== undefined);
    const pick = sized ? [...top].sort((a, b) => (b.size ?? 0) - (a.size ?? 0))[0] : top[0];
    const name = pick && cells(pick.text)[0];
    if (name && name !== customer?.value) supplier = { value: name, confidence: 0.5 };
  }
  return { supplier, customer };
}

/** Reads the fields of an invoice or receipt from its lines; `scale` lowers every confidence (OCR). */
export function readTextFields(input: TextLine[], scale = 1): ReadFields {
  const read = emptyFields();
  const lines = withStackedPairs(input.map((l) => l.text.replace(/\s+$/, '')).filter((t) => t.trim() !== ''));
  const nonEmpty = input.filter((l) => l.text.trim() !== '');
  const set = (path: Parameters<typeof setField>[1], found: Found<string | number>) => {
    if (found) setField(read, path, found.value, found.confidence * scale);
  };
  const all = lines.join('\n');
  if (CREDIT.test(all)) setField(read, 'documentType', 'CREDIT_NOTE', 0.8 * scale);
  else if (INVOICE_WORD.test(all)) setField(read, 'documentType', 'BASIS', 0.8 * scale);
  const isCredit = read.documentType === 'CREDIT_NOTE';

  const docCodes = codesIn(lines);
  const found = amountLines(lines, docCodes);
  const best = (kind: AmountLine['kind']) =>
    found.filter((f) => f.kind === kind).sort((a, b) => b.strength - a.strength || Math.abs(b.amount.minor) - Math.abs(a.amount.minor))[0];
  const total = best('TOTAL');
  const withCurrency = found.find((f) => f.amount.currency);
  const currency = total?.amount.currency
    ? { value: total.amount.currency, confidence: total.amount.currencyConfidence }
    : withCurrency?.amount.currency
      ? { value: withCurrency.amount.currency, confidence: withCurrency.amount.currencyConfidence * 0.9 }
      : docCodes.size === 1
        ? { value: [...docCodes][0], confidence: 0.6 }
        : null;
  set('currency', currency);
  const exponent = currencyExponent(currency?.value ?? 'EUR');
  const minor = (a: Amount | undefined) => (a ? (isCredit ? Math.abs(toMinor(a, exponent)) : toMinor(a, exponent)) : null);
  const net = best('NET');
  const tax = best('TAX');
  if (total) {
    const sums = net && tax && minor(net.amount)! + minor(tax.amount)! === minor(total.amount);
    set('totalCents', { value: minor(total.amount)!, confidence: sums ? 0.95 : total.strength === 2 ? 0.9 : 0.8 });
  }
  if (net) set('netCents', { value: minor(net.amount)!, confidence: 0.8 });
  if (tax) set('taxCents', { value: minor(tax.amount)!, confidence: 0.75 });

  const monthFirst = currency?.value === 'USD';
  set('documentNumber', findNumber(lines));
  set('issueDate', findDate(lines, ISSUE_LABEL, DUE_LABEL, monthFirst) ?? firstDate(lines, monthFirst));
  set('dueDate', findDate(lines, DUE_LABEL, null, monthFirst));
  const ids = findTaxIds(lines);
  set('supplier.taxId', ids.supplier);
  set('customer.taxId', ids.customer);
  set('supplier.iban', findIban(lines));
  const names = findNames(nonEmpty);
  set('supplier.name', names.supplier);
  set('customer.name', names.customer);
  return read;
}

function firstDate(lines: string[], monthFirst: boolean): Found<string> {
  for (const line of lines) {
    if (DUE_LABEL.test(line)) continue;
    const d = datesIn(line, monthFirst)[0];
    if (d) return { value: d.date, confidence: d.sure ? 0.5 : 0.35 };
  }
  return null;
}

/**
 * Layouts that put values under their labels ("Invoice Number" above "INV-0042", in columns):
 * each such pair is added as a line "label: value" after the two, so the label-driven finders see it.
 */
function withStackedPairs(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
    const labels = cells(lines[i]);
    const values = i + 1 < lines.length ? cells(lines[i + 1]) : [];
    if (labels.length === 0 || labels.length !== values.length || labels.some(hasDigit) || !values.some(hasDigit)) continue;
    const pairs = labels.map((label, k) => `${label}: ${values[k]}`);
    out.push(lines[i + 1], ...pairs);
    i++;
  }
  return out;
}
