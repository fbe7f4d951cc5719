import { lockById } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { updateTenantRow } from '../../db/update-row.js';
import { notFound } from '../../lib/errors.js';
import type { DocumentObject, DocumentStatus, DocumentType } from '../../../shared/contracts/documents.js';

export type DocumentRow = {
  id: string;
  entry_id: number;
  workspace_id: number;
  document_name: string;
  document_type: DocumentType;
  status: DocumentStatus;
  mime_type: string | null;
  file_size: number | null;
  sha256: string | null;
  storage_key: string | null;
  uploaded_by: string | null;
  approved_by: string | null;
  comment: string | null;
  rejection_reason: string | null;
  created_at: Date;
  updated_at: Date;
};

/** The document as the contract shows it (CONTRACT §6); the storage key never leaves the service. */
export const presentDocument = (r: DocumentRow): DocumentObject => ({
  id: r.id,
  entryId: r.entry_id,
  documentName: r.document_name,
  documentType: r.document_type,
  status: r.status,
  mimeType: r.mime_type,
  fileSize: r.file_size,
  sha256: r.sha256,
  uploadedBy: r.uploaded_by,
  approvedBy: r.approved_by,
  comment: r.comment,
  rejectionReason: r.rejection_reason,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export async function documentRowsOf(entryId: number, tx?: Transaction): Promise<DocumentRow[]> {
  return db().query<DocumentRow>('SELECT * FROM entry_documents WHERE entry_id = :entryId ORDER BY created_at, id', {
    replacements: { entryId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
}

/** One document of the entry, or 404 (a document of another entry is not found either). */
export async function loadDocument(entryId: number, documentId: string, tx?: Transaction, forUpdate = false): Promise<DocumentRow> {
  const [row] = await db().query<DocumentRow>(
    `SELECT * FROM entry_documents WHERE id = :documentId AND entry_id = :entryId${forUpdate ? await lockById('entry_documents', documentId, tx, 'FOR UPDATE') : ''}`,
    { replacements: { documentId, entryId }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (!row) throw notFound('Document');
  return row;
}

/** Column → value changes of one document, applied with one UPDATE that also sets updated_at. */
export const updateDocumentRow = (
  tx: Transaction,
  key: Pick<DocumentRow, 'id' | 'workspace_id'>,
  changes: Record<string, unknown>,
  now: Date,
) => updateTenantRow<DocumentRow>(tx, 'entry_documents', key, changes, now);

/** A new document row; `id` given keeps an inbox document's id for the entry document it becomes. */
export async function insertDocumentRow(
  tx: Transaction,
  values: Omit<DocumentRow, 'id' | 'updated_at'> & { id?: string },
): Promise<DocumentRow> {
  const [row] = await db().query<DocumentRow>(
    `INSERT INTO entry_documents (id, entry_id, workspace_id, document_name, document_type, status, mime_type, file_size, sha256, storage_key,
                                  uploaded_by, approved_by, comment, rejection_reason, created_at, updated_at)
     VALUES (COALESCE(CAST(:id AS uuid), gen_random_uuid()), :entry_id, :workspace_id, :document_name, :document_type, :status, :mime_type, :file_size, :sha256, :storage_key,
             :uploaded_by, :approved_by, :comment, :rejection_reason, :created_at, :created_at)
     RETURNING *`,
    { replacements: { id: null, ...values }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row;
}
