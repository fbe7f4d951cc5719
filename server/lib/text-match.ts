/**
 * Text comparison of bank lines and documents with entries (CONTRACT §14, §21 ranking): case, bank prefixes and
 * punctuation do not count.
 */

/** Words banks put in front of what the payer wrote (card, transfer, direct-debit markers). */
const BANK_PREFIXES = [
  'sepa credit transfer',
  'sepa direct debit',
  'sepa ueberweisung',
  'sepa überweisung',
  'sepa lastschrift',
  'sepa gutschrift',
  'sepa',
  'ueberweisung',
  'überweisung',
  'lastschrift',
  'gutschrift',
  'dauerauftrag',
  'card payment',
  'card purchase',
  'debit card',
  'pos purchase',
  'pos',
  'visa',
  'mastercard',
  'maestro',
  'direct debit',
  'dd',
  'standing order',
  'so',
  'bank transfer',
  'transfer',
  'trf',
  'ach credit',
  'ach debit',
  'ach',
  'wire',
  'payment to',
  'payment from',
  'payment',
  'purchase',
  'ref',
  'reference',
  'remittance',
  'eref',
  'mref',
  'svwz',
];
const PREFIX_RE = new RegExp(`^(?:(?:${BANK_PREFIXES.map((p) => p.replace(/ /g, '\\s+')).join('|')})\\b[\\s:./-]*)+`, 'u');

/** Lower case, punctuation to spaces, leading bank markers removed, whitespace collapsed. */
export function normaliseText(s: string | null | undefined): string {
  const plain = (s ?? '')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return plain.replace(PREFIX_RE, '').trim();
}

/** Letters and digits only: "INV-2024/0042" and "inv 2024 0042" compare equal. */
export const compact = (s: string | null | undefined) => (s ?? '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

function trigrams(s: string): Set<string> {
  const out = new Set<string>();
  for (const word of s.split(' ')) {
    if (!word) continue;
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  }
  return out;
}

/** Trigram similarity (as pg_trgm computes it) of two normalised texts, 0..1. */
export function similarity(a: string, b: string): number {
  if (!a || !b) return 0;
  const ta = trigrams(a);
  const tb = trigrams(b);
  let shared = 0;
  for (const t of ta) if (tb.has(t)) shared++;
  return shared / (ta.size + tb.size - shared);
}

/** Reference-like tokens of an entry: its reference, and invoice-number-looking words of its description (letters with ≥3 digits). */
export function referenceTokens(reference: string | null, description: string | null): string[] {
  const tokens = new Set<string>();
  const ref = compact(reference);
  if (ref.length >= 3) tokens.add(ref);
  for (const word of (description ?? '').split(/\s+/)) {
    const c = compact(word);
    if (c.length >= 4 && /\d{3,}/.test(c)) tokens.add(c);
  }
  return [...tokens];
}
