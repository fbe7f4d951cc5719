import { z } from 'zod/v4';
import {
  BigIntId,
  BigIntIdValue,
  CentsValue,
  CountValue,
  Currency,
  IntId,
  IntIdValue,
  IsoDate,
  Page,
  PageQuery,
  Sha256Hex,
  Text,
  TEXT_MAX,
  Timestamp,
  Uuid,
  UuidValue,
} from './common.js';
import { DOCUMENT_NAME_MAX, DocumentType, BinaryBody } from './documents.js';
import { AmountCents, EntryObject, EntryType, MAX_ENTRY_TAGS } from './entries.js';

/** CONTRACT §21: what the service reads from a stored document, the inbox, suggestions and attaching. */

export const EXTRACTION_STATUSES = ['PENDING', 'DONE', 'NONE', 'FAILED'] as const;
export const EXTRACTION_SOURCES = ['EINVOICE', 'PDF_TEXT', 'OCR'] as const;
/** Longest text value an extraction keeps (a document number, a name, an id). */
export const EXTRACTED_TEXT_MAX = 255;

const Unit = z.number().min(0).max(1);
const Read = Text(EXTRACTED_TEXT_MAX).nullable();

/** The confidence of one value an extraction found. */
export const ExtractedField = z.object({ confidence: Unit });
export const ExtractedSupplier = z.object({ name: Read, taxId: Read, iban: Read });
export const ExtractedCustomer = z.object({ name: Read, taxId: Read });

export const ExtractionSource = z.enum(EXTRACTION_SOURCES);

export const ExtractionObject = z.object({
  documentId: UuidValue,
  status: z
    .enum(EXTRACTION_STATUSES)
    .describe('PENDING until the background reading has run (after the upload commits); then DONE, NONE (nothing to read) or FAILED'),
  source: ExtractionSource.nullable(),
  documentType: DocumentType.nullable().describe('BASIS for an invoice or receipt, CREDIT_NOTE for a credit note'),
  documentNumber: Read,
  issueDate: IsoDate.nullable(),
  dueDate: IsoDate.nullable(),
  currency: Currency.nullable(),
  totalCents: CentsValue.nullable().describe("the total with tax, in minor units of `currency` (a credit note's is positive)"),
  taxCents: CentsValue.nullable(),
  netCents: CentsValue.nullable(),
  supplier: ExtractedSupplier,
  customer: ExtractedCustomer,
  fields: z
    .record(z.string().max(40), ExtractedField)
    .describe('confidence (0..1) of every value found, by its path (`totalCents`, `supplier.name` …); 1 = read exactly'),
  extractedAt: Timestamp.nullable(),
});

export const INBOX_STATUSES = ['UNATTACHED', 'ATTACHED'] as const;
export const InboxStatus = z.enum(INBOX_STATUSES);

export const InboxDocumentObject = z.object({
  id: UuidValue,
  workspaceId: IntIdValue,
  documentName: Text(DOCUMENT_NAME_MAX),
  mimeType: Text(255),
  fileSize: CountValue.describe('bytes'),
  sha256: Sha256Hex,
  status: InboxStatus,
  entryId: BigIntIdValue.nullable().describe('the entry it is attached to'),
  documentId: UuidValue.nullable().describe('the entry document it became (a REQUESTED one it fulfilled, or a new one)'),
  uploadedBy: UuidValue.nullable(),
  attachedBy: UuidValue.nullable().describe('null when attached automatically'),
  attachedAt: Timestamp.nullable(),
  autoAttached: z.boolean(),
  extraction: ExtractionObject,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const InboxUploadFields = z.object({ workspaceId: IntId }).strict();
export const InboxUploadForm = z.object({ workspaceId: IntId, file: BinaryBody }).strict();

export const ListInboxQuery = z.object({ workspaceId: IntId, status: InboxStatus.optional(), ...PageQuery });
export const InboxPage = Page(InboxDocumentObject);
export const InboxPath = z.object({ id: Uuid });
export const DocumentExtractionPath = z.object({ id: Uuid });

export const SUGGESTION_REASON_KINDS = ['AMOUNT', 'DATE', 'PARTY', 'NUMBER', 'CURRENCY'] as const;
export const DOCUMENT_SUGGESTIONS_MAX = 10;
export const SuggestionReason = z.object({ kind: z.enum(SUGGESTION_REASON_KINDS), detail: Text(500) });
export const DocumentSuggestion = z.object({
  entryId: BigIntIdValue,
  score: Unit,
  reasons: z.array(SuggestionReason).max(5),
});

export const AttachInboxInput = z
  .object({
    id: Uuid,
    entryId: BigIntId,
    documentType: DocumentType.optional().describe('default: the type the document reads as, else BASIS'),
  })
  .strict();

export const CreateEntryFromDocumentInput = z
  .object({
    id: Uuid,
    projectId: IntId,
    entryType: EntryType.optional().describe('default EXPENSE'),
    amountCents: AmountCents.optional().describe('default: the total read'),
    baseCurrency: Currency.optional().describe('default: the currency read'),
    entryDate: IsoDate.optional().describe('default: the issue date read'),
    description: z.string().max(TEXT_MAX).optional(),
    reference: z.string().max(255).optional().describe('default: the document number read'),
    partyId: IntId.optional().describe('the counterparty; default: the supplier (EXPENSE) or customer (INCOME) found or created by name'),
    tagIds: z.array(IntId).max(MAX_ENTRY_TAGS).optional(),
    documentType: DocumentType.optional(),
  })
  .strict();
export const EntryWithInboxDocument = z.object({ entry: EntryObject, document: InboxDocumentObject });

export type ExtractionObject = z.infer<typeof ExtractionObject>;
export type InboxDocumentObject = z.infer<typeof InboxDocumentObject>;
export type DocumentSuggestion = z.infer<typeof DocumentSuggestion>;
export type AttachInboxInput = z.infer<typeof AttachInboxInput>;
export type CreateEntryFromDocumentInput = z.infer<typeof CreateEntryFromDocumentInput>;
export type ListInboxQuery = z.infer<typeof ListInboxQuery>;
