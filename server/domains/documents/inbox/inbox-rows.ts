import { lockById } from '../../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { InboxDocumentObject } from '../../../../shared/contracts/documents-inbox.js';
import { presentExtraction, type ExtractionRow } from '../extraction/extraction-rows.js';

export type InboxRow = {
  id: string;
  workspace_id: number;
  document_name: string;
  mime_type: string;
  file_size: number;
  sha256: string;
  storage_key: string;
  uploaded_by: string | null;
  status: 'UNATTACHED' | 'ATTACHED';
  entry_id: number | null;
  document_id: string | null;
  attached_by: string | null;
  attached_at: Date | null;
  auto_attached: boolean;
  auto_checked: boolean;
  created_at: Date;
  updated_at: Date;
};

/** A row with its extraction joined in (the columns `x_*`). */
export type InboxRowWithExtraction = InboxRow & { x: ExtractionRow | null };

export const presentInboxDocument = (r: InboxRow, extraction: ExtractionRow | null): InboxDocumentObject => ({
  id: r.id,
  workspaceId: r.workspace_id,
  documentName: r.document_name,
  mimeType: r.mime_type,
  fileSize: Number(r.file_size),
  sha256: r.sha256,
  status: r.status,
  entryId: r.entry_id === null ? null : Number(r.entry_id),
  documentId: r.document_id,
  uploadedBy: r.uploaded_by,
  attachedBy: r.attached_by,
  attachedAt: r.attached_at ? r.attached_at.toISOString() : null,
  autoAttached: r.auto_attached,
  extraction: presentExtraction(r.id, extraction),
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

/** SELECT of inbox rows with their extraction as one jsonb column `x`. */
export const SELECT_WITH_EXTRACTION = `SELECT d.*, to_jsonb(x) AS x
  FROM inbox_documents d
  LEFT JOIN document_extractions x ON x.workspace_id = d.workspace_id AND x.sha256 = d.sha256`;

/** jsonb gives timestamps as strings: back to Dates. */
export function extractionOf(x: unknown): ExtractionRow | null {
  if (!x || typeof x !== 'object') return null;
  const row = x as ExtractionRow & { created_at: string | Date; extracted_at: string | Date | null };
  return { ...row, created_at: new Date(row.created_at), extracted_at: row.extracted_at ? new Date(row.extracted_at) : null };
}

export const presentWithExtraction = (r: InboxRowWithExtraction) => presentInboxDocument(r, extractionOf(r.x));

/** An inbox document the actor reaches (workspace members), or 404; `lock` takes it FOR UPDATE in `tx`. */
export async function loadInbox(actor: Actor | null, id: string, tx?: Transaction, lock = false): Promise<InboxRowWithExtraction> {
  const [row] = await db().query<InboxRowWithExtraction>(
    `${SELECT_WITH_EXTRACTION} WHERE d.id = :id${lock ? await lockById('inbox_documents', id, tx, 'FOR UPDATE OF d', 'd.workspace_id') : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  if (!row || (actor && !scope.canSeeWorkspaceObject(actor, row.workspace_id))) throw notFound('Inbox document');
  return row;
}

export async function insertInboxRow(
  tx: Transaction,
  v: Pick<InboxRow, 'workspace_id' | 'document_name' | 'mime_type' | 'file_size' | 'sha256' | 'storage_key' | 'uploaded_by'>,
): Promise<InboxRow> {
  const [row] = await db().query<InboxRow>(
    `INSERT INTO inbox_documents (workspace_id, document_name, mime_type, file_size, sha256, storage_key, uploaded_by)
     VALUES (:workspace_id, :document_name, :mime_type, :file_size, :sha256, :storage_key, :uploaded_by) RETURNING *`,
    { replacements: v, type: QueryTypes.SELECT, transaction: tx },
  );
  return row;
}

export async function markAttached(
  tx: Transaction,
  id: string,
  v: { entryId: number; documentId: string; attachedBy: string | null; auto: boolean; now: Date },
): Promise<InboxRow> {
  const [row] = await db().query<InboxRow>(
    `UPDATE inbox_documents SET status = 'ATTACHED', entry_id = :entryId, document_id = :documentId, attached_by = :attachedBy,
            attached_at = :now, auto_attached = :auto, auto_checked = true, updated_at = :now
      WHERE id = :id RETURNING *`,
    { replacements: { id, ...v }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row;
}
