import type { DocumentType } from '../../../../shared/contracts/documents.js';

/** What a reader found in a file (CONTRACT §21); unknown values are null. */
export type ReadFields = {
  documentType: Extract<DocumentType, 'BASIS' | 'CREDIT_NOTE'> | null;
  documentNumber: string | null;
  issueDate: string | null;
  dueDate: string | null;
  currency: string | null;
  totalCents: number | null;
  taxCents: number | null;
  netCents: number | null;
  supplier: { name: string | null; taxId: string | null; iban: string | null };
  customer: { name: string | null; taxId: string | null };
  /** confidence 0..1 of every value found (1 = read exactly, as an e-invoice states it) */
  fields: Record<string, { confidence: number }>;
};

export type ReadSource = 'EINVOICE' | 'PDF_TEXT' | 'OCR';

/** The outcome of reading one file: DONE with its fields, NONE (nothing readable), or FAILED (a malformed file). */
export type ReadOutcome =
  { status: 'DONE'; source: ReadSource; read: ReadFields } | { status: 'NONE'; reason: string } | { status: 'FAILED'; reason: string };

export function emptyFields(): ReadFields {
  return {
    documentType: null,
    documentNumber: null,
    issueDate: null,
    dueDate: null,
    currency: null,
    totalCents: null,
    taxCents: null,
    netCents: null,
    supplier: { name: null, taxId: null, iban: null },
    customer: { name: null, taxId: null },
    fields: {},
  };
}

/** The names of the fields' confidence entries, in the order of the object. */
export const FIELD_PATHS = [
  'documentType',
  'documentNumber',
  'issueDate',
  'dueDate',
  'currency',
  'totalCents',
  'taxCents',
  'netCents',
  'supplier.name',
  'supplier.taxId',
  'supplier.iban',
  'customer.name',
  'customer.taxId',
] as const;
export type FieldPath = (typeof FIELD_PATHS)[number];

/** Sets `path` to `value` with its confidence (nothing when the value is null). */
export function setField(read: ReadFields, path: FieldPath, value: string | number | null | undefined, confidence: number): void {
  if (value === null || value === undefined || value === '') return;
  const [head, tail] = path.split('.') as [keyof ReadFields, string | undefined];
  if (tail) (read[head] as Record<string, unknown>)[tail] = value;
  else (read as Record<string, unknown>)[head] = value;
  read.fields[path] = { confidence: Math.round(Math.max(0, Math.min(1, confidence)) * 100) / 100 };
}

/** True when nothing at all was found. */
export const isEmpty = (read: ReadFields) => Object.keys(read.fields).length === 0;
