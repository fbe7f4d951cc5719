import type { DocumentSuggestion } from '../../../../shared/contracts/documents-inbox.js';
import { compact, similarity } from '../../../lib/text-match.js';
import type { ReadFields } from '../extraction/fields.js';

/**
 * How well an entry fits a document read (CONTRACT §21), with the bank matcher's text comparison
 * (trigram similarity, compact references): amount equal to the total in the same currency first,
 * then the date's nearness to the issue date, the supplier against the entry's counterparty (tax
 * id, else name) and the document number in the entry's reference or description.
 */
export type Candidate = {
  id: number | string;
  amount_cents: number;
  base_currency: string;
  entry_date: string;
  reference: string | null;
  description: string | null;
  party_name: string | null;
  party_tax_id: string | null;
};

/** Legal forms and punctuation do not tell two companies apart: "ACME GmbH" is "Acme". */
const LEGAL_FORMS =
  /\b(gmbh|ag|kg|ohg|ug|e\s?k|mbh|co|ltd|limited|llc|llp|inc|incorporated|corp|corporation|plc|sa|sas|sarl|srl|spa|bv|nv|oy|ab|as|aps|sp\s?z\s?o\s?o|company)\b/g;
export function normaliseName(name: string | null | undefined): string {
  return (name ?? '')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .replace(LEGAL_FORMS, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const DATE_WINDOW_DAYS = 30;
const days = (a: string, b: string) => Math.round(Math.abs(Date.parse(a) - Date.parse(b)) / 86_400_000);
const round = (x: number) => Math.round(Math.max(0, Math.min(1, x)) * 1000) / 1000;

/** The supplier (or customer) against the counterparty: 1 for the same tax id or name, else name similarity. */
export function partyFit(read: ReadFields, c: Candidate): number {
  const names = [read.supplier.name, read.customer.name];
  const taxIds = [read.supplier.taxId, read.customer.taxId].map((t) => compact(t)).filter((t) => t.length >= 5);
  if (c.party_tax_id && taxIds.includes(compact(c.party_tax_id))) return 1;
  const party = normaliseName(c.party_name);
  if (!party) return 0;
  return Math.max(
    0,
    ...names
      .map((n) => normaliseName(n))
      .filter(Boolean)
      .map((n) => (n === party ? 1 : similarity(n, party))),
  );
}

/** The document number in the entry's reference (equal or within) or as a word of its description. */
export function numberFit(read: ReadFields, c: Candidate): boolean {
  const number = compact(read.documentNumber);
  if (number.length < 3) return false;
  const reference = compact(c.reference);
  if (reference && (reference === number || (number.length >= 4 && reference.includes(number)))) return true;
  return number.length >= 4 && compact(c.description).includes(number);
}

export type Scored = DocumentSuggestion & { key: number[]; amount: boolean; number: boolean; party: number };

export function scoreCandidate(read: ReadFields, c: Candidate): Scored {
  const currency = read.currency !== null && c.base_currency.trim() === read.currency;
  const amount = currency && read.totalCents !== null && Number(c.amount_cents) === read.totalCents;
  const gap = read.issueDate ? days(c.entry_date, read.issueDate) : null;
  const date = gap === null ? 0 : Math.max(0, 1 - gap / (DATE_WINDOW_DAYS + 1));
  const party = partyFit(read, c);
  const number = numberFit(read, c);
  const reasons: DocumentSuggestion['reasons'] = [];
  if (amount) reasons.push({ kind: 'AMOUNT', detail: `${read.totalCents} ${read.currency} equals the document's total` });
  if (currency) reasons.push({ kind: 'CURRENCY', detail: `both in ${read.currency}` });
  if (gap !== null && gap <= DATE_WINDOW_DAYS)
    reasons.push({
      kind: 'DATE',
      detail: gap === 0 ? 'dated on the issue date' : `dated ${gap} day${gap === 1 ? '' : 's'} from the issue date`,
    });
  if (party >= 0.5)
    reasons.push({
      kind: 'PARTY',
      detail: `counterparty "${(c.party_name ?? '').slice(0, 200)}" ${party === 1 ? 'is' : 'resembles'} the document's party`,
    });
  if (number)
    reasons.push({
      kind: 'NUMBER',
      detail: `document number ${(read.documentNumber ?? '').slice(0, 100)} is in the entry's reference or description`,
    });
  const score = round(0.4 * (amount ? 1 : 0) + 0.25 * date + 0.15 * party + 0.2 * (number ? 1 : 0));
  return { entryId: Number(c.id), score, reasons, key: [amount ? 1 : 0, score, -(gap ?? 9999)], amount, number, party };
}

export const bestFirst = (a: Scored, b: Scored) => {
  for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return b.key[i] - a.key[i];
  return a.entryId - b.entryId;
};
