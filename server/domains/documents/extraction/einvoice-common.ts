import { toMinorUnits } from './amounts.js';
import { setField, type FieldPath, type ReadFields } from './fields.js';

/** UNTDID 1001 codes EN 16931 uses for credit notes; every other type code reads as an invoice (BASIS). */
export const CREDIT_NOTE_CODES: ReadonlySet<string> = new Set(['81', '83', '261', '262', '296', '308', '381', '396', '420', '458', '532']);

/** An amount stated in the document's currency, taken to the minor unit (confidence 1 when exact). */
export function setAmount(read: ReadFields, path: FieldPath, value: string | null, currency: string | null, positive: boolean): void {
  if (!value || !currency) return;
  const amount = toMinorUnits(value, currency);
  if (!amount) return;
  setField(read, path, positive ? Math.abs(amount.value) : amount.value, amount.exact ? 1 : 0.9);
}

/** A date stated as YYYY-MM-DD (UBL) or CCYYMMDD (CII format 102), if it is a real date. */
export function dateOf(value: string | null, format: 'ISO' | '102'): string | null {
  if (!value) return null;
  const m = format === 'ISO' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  const iso = `${m[1]}-${m[2]}-${m[3]}`;
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso ? null : iso;
}

export const currencyOf = (value: string | null) => (value && /^[A-Z]{3}$/.test(value) ? value : null);
