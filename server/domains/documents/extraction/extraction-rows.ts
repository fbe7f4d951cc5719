import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { EXTRACTED_TEXT_MAX, type ExtractionObject } from '../../../../shared/contracts/documents-inbox.js';
import { emptyFields, type ReadFields, type ReadOutcome } from './fields.js';

export type ExtractionRow = {
  workspace_id: number;
  sha256: string;
  storage_key: string;
  mime_type: string;
  status: 'PENDING' | 'DONE' | 'NONE' | 'FAILED';
  source: 'EINVOICE' | 'PDF_TEXT' | 'OCR' | null;
  fields: ReadFields | null;
  reason: string | null;
  attempts: number;
  created_at: Date;
  extracted_at: Date | null;
};

export type StoredFile = { workspaceId: number; sha256: string; storageKey: string; mimeType: string };

/** In the transaction that stores a document: its file's reading is due (once per content and workspace). */
export async function queueExtraction(tx: Transaction, file: StoredFile): Promise<void> {
  await db().query(
    `INSERT INTO document_extractions (workspace_id, sha256, storage_key, mime_type, created_at)
     VALUES (:ws, :sha256, :key, :mime, now()) ON CONFLICT (workspace_id, sha256) DO NOTHING`,
    { replacements: { ws: file.workspaceId, sha256: file.sha256, key: file.storageKey, mime: file.mimeType }, transaction: tx },
  );
}

export async function loadExtraction(workspaceId: number, sha256: string, tx?: Transaction, lock = false): Promise<ExtractionRow | null> {
  const [row] = await db().query<ExtractionRow>(
    `SELECT * FROM document_extractions WHERE workspace_id = :ws AND sha256 = :sha256${lock ? ' FOR UPDATE' : ''}`,
    { replacements: { ws: workspaceId, sha256 }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row ?? null;
}

const cut = (v: string | null) => (v === null ? null : v.slice(0, EXTRACTED_TEXT_MAX));

/** The text values cut to what the contract keeps (a reader never makes a response invalid). */
function bounded(read: ReadFields): ReadFields {
  return {
    ...read,
    documentNumber: cut(read.documentNumber),
    supplier: { name: cut(read.supplier.name), taxId: cut(read.supplier.taxId), iban: cut(read.supplier.iban) },
    customer: { name: cut(read.customer.name), taxId: cut(read.customer.taxId) },
  };
}

/** Records the outcome of a reading (PENDING rows only: a reading is done once). Returns the row recorded, or null. */
export async function saveOutcome(
  tx: Transaction,
  workspaceId: number,
  sha256: string,
  outcome: ReadOutcome,
): Promise<ExtractionRow | null> {
  const done = outcome.status === 'DONE';
  const [row] = await db().query<ExtractionRow>(
    `UPDATE document_extractions
        SET status = :status, source = :source, fields = CAST(:fields AS jsonb), reason = :reason, extracted_at = now(), attempts = attempts + 1
      WHERE workspace_id = :ws AND sha256 = :sha256 AND status = 'PENDING'
      RETURNING *`,
    {
      replacements: {
        ws: workspaceId,
        sha256,
        status: outcome.status,
        source: done ? outcome.source : null,
        fields: done ? JSON.stringify(bounded(outcome.read)) : null,
        reason: done ? null : outcome.reason.slice(0, 1000),
      },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return row ?? null;
}

/** The extraction object of a document (CONTRACT §21); a file without a row yet reads as PENDING. */
export function presentExtraction(documentId: string, row: ExtractionRow | null): ExtractionObject {
  const read = row?.status === 'DONE' && row.fields ? row.fields : emptyFields();
  return {
    documentId,
    status: row?.status ?? 'PENDING',
    source: row?.status === 'DONE' ? row.source : null,
    documentType: read.documentType,
    documentNumber: read.documentNumber,
    issueDate: read.issueDate,
    dueDate: read.dueDate,
    currency: read.currency,
    totalCents: read.totalCents,
    taxCents: read.taxCents,
    netCents: read.netCents,
    supplier: { ...read.supplier },
    customer: { ...read.customer },
    fields: { ...read.fields },
    extractedAt: row?.extracted_at ? row.extracted_at.toISOString() : null,
  };
}

/** The fields read, when the reading is DONE. */
export const readOf = (row: ExtractionRow | null): ReadFields | null => (row?.status === 'DONE' ? row.fields : null);
