import { z } from 'zod/v4';
import {
  BigIntId,
  BigIntIdValue,
  CountValue,
  IntId,
  NonBlankText,
  Sha256Hex,
  Text,
  TEXT_MAX,
  Timestamp,
  Uuid,
  UuidValue,
} from './common.js';

export const DOCUMENT_TYPES = ['BASIS', 'PAYMENT_PROOF', 'SUPPORTING', 'CREDIT_NOTE'] as const;
export const DOCUMENT_STATUSES = ['REQUESTED', 'UPLOADED', 'APPROVED', 'REJECTED'] as const;

export const DocumentType = z.enum(DOCUMENT_TYPES);
export const DocumentStatus = z.enum(DOCUMENT_STATUSES);

/** A document of an entry (CONTRACT §6). File fields are null while the document is a REQUESTED placeholder. */
export const DOCUMENT_NAME_MAX = 255;
/** Default upload limit (CONTRACT §12, UPLOAD_LIMIT_BYTES; configurable, 413 beyond it). */
export const DEFAULT_UPLOAD_LIMIT_BYTES = 25 * 1024 * 1024;

/** A document of an entry (CONTRACT §6). File fields are null while the document is a REQUESTED placeholder. */
export const DocumentObject = z.object({
  id: Uuid,
  entryId: BigIntIdValue,
  documentName: Text(DOCUMENT_NAME_MAX),
  documentType: DocumentType,
  status: DocumentStatus,
  mimeType: Text(255).nullable(),
  fileSize: CountValue.nullable().describe('bytes'),
  sha256: Sha256Hex.nullable().describe('lower-case hex SHA-256 of the file'),
  uploadedBy: UuidValue.nullable(),
  approvedBy: UuidValue.nullable(),
  comment: Text(TEXT_MAX).nullable(),
  rejectionReason: Text(TEXT_MAX).nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const EntryDocumentsInput = z.object({ entryId: BigIntId });
export const DocumentPathInput = z.object({ entryId: BigIntId, documentId: Uuid });
export const DocumentDecisionInput = DocumentPathInput.strict();

export const RequestDocumentInput = z
  .object({
    entryId: BigIntId,
    documentName: NonBlankText(DOCUMENT_NAME_MAX),
    documentType: DocumentType,
    comment: z.string().trim().max(TEXT_MAX).nullish(),
  })
  .strict();

export const RejectDocumentInput = z
  .object({
    entryId: BigIntId,
    documentId: Uuid,
    reason: NonBlankText(TEXT_MAX, 'reason is required'),
  })
  .strict();

/** Query of the multipart upload: the workspace the entry belongs to (CONTRACT §6). */
export const UploadQuery = z.object({ workspaceId: IntId });
/** Query of the multipart fulfil: the workspace is optional there, checked like the upload's when given. */
export const FulfilQuery = z.object({ workspaceId: IntId.optional() });

/** Text fields of the multipart bodies (the file part is read separately). */
export const UploadFields = z.object({ documentType: DocumentType }).strict();
export const FulfilFields = z.object({ documentType: DocumentType.optional() }).strict();

/**
 * No maxLength: the limit is the service's UPLOAD_LIMIT_BYTES (configurable; 413 beyond it), and a maxLength on
 * a binary part misleads generators (Schemathesis' coverage phase "violates" it with a small file and expects a 400).
 */
const BinaryFile = z.string().meta({
  format: 'binary',
  minLength: 1,
  description: 'the file; its type is sniffed from the bytes; at most UPLOAD_LIMIT_BYTES (default 25 MiB, else 413)',
});

/** OpenAPI shapes of the multipart bodies. */
export const UploadForm = z.object({ file: BinaryFile, documentType: DocumentType }).strict();
export const FulfilForm = z.object({ file: BinaryFile, documentType: DocumentType.optional() }).strict();
export const BinaryBody = z.string().meta({
  format: 'binary',
  minLength: 1,
  maxLength: DEFAULT_UPLOAD_LIMIT_BYTES,
  description: 'the stored file, as uploaded (at most UPLOAD_LIMIT_BYTES, default 25 MiB)',
});

export type DocumentType = z.infer<typeof DocumentType>;
export type DocumentStatus = z.infer<typeof DocumentStatus>;
export type DocumentObject = z.infer<typeof DocumentObject>;
export type RequestDocumentInput = z.infer<typeof RequestDocumentInput>;
