import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { conflict } from '../../../lib/errors.js';
import type { DocumentType } from '../../../../shared/contracts/documents.js';
import type { InboxDocumentObject } from '../../../../shared/contracts/documents-inbox.js';
import { closedPeriodMessage, ledger, type EntryRow, type EventActor } from '../../entries/index.js';
import { publish } from '../../outbound-webhooks/index.js';
import { holdBlob } from '../document-blobs.js';
import { assertEntryTakesDocumentChanges, recordDocumentChange } from '../document-changes.js';
import { insertDocumentRow, updateDocumentRow, type DocumentRow } from '../document-rows.js';
import { extractionOf, markAttached, presentInboxDocument, type InboxRowWithExtraction } from './inbox-rows.js';

/** The oldest REQUESTED placeholder of `type` on the entry, locked. */
async function requestedOfType(tx: Transaction, entry: EntryRow, type: DocumentType): Promise<DocumentRow | undefined> {
  const [row] = await db().query<DocumentRow>(
    `SELECT * FROM entry_documents WHERE workspace_id = :ws AND entry_id = :entryId AND document_type = :type AND status = 'REQUESTED'
      ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
    { replacements: { ws: entry.workspace_id, entryId: entry.id, type }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row;
}

/** The type an inbox document is attached as when none is given: what it reads as, else BASIS. */
export const defaultTypeOf = (doc: InboxRowWithExtraction): DocumentType => extractionOf(doc.x)?.fields?.documentType ?? 'BASIS';

/**
 * Attaches a locked UNATTACHED inbox document to a locked entry, in the caller's transaction
 * (CONTRACT §21): 409 for a VOIDED or CANCELLED entry or one in a closed period; a REQUESTED
 * placeholder of that type is fulfilled by it, else the entry gets a new UPLOADED document (with
 * the inbox document's id); completeness is recomputed; DOCUMENT_UPLOADED and `document.attached`.
 * `attachedBy` null with `auto` for auto-attach.
 */
export async function attachInTransaction(
  tx: Transaction,
  doc: InboxRowWithExtraction,
  entry: EntryRow,
  type: DocumentType,
  who: EventActor,
  attachedBy: string | null,
): Promise<InboxDocumentObject> {
  if (doc.status !== 'UNATTACHED') throw conflict('The inbox document is already attached');
  assertEntryTakesDocumentChanges(entry);
  const closed = (await ledger.closedPeriodsAt(tx, entry.workspace_id, [entry.entry_date])).get(entry.entry_date);
  if (closed) throw conflict(closedPeriodMessage(entry.entry_date, closed));
  await holdBlob(tx, doc.sha256); // the inbox row keeps the file; no release runs meanwhile
  const now = clock.now();
  const file = {
    mime_type: doc.mime_type,
    file_size: Number(doc.file_size),
    sha256: doc.sha256,
    storage_key: doc.storage_key,
    uploaded_by: doc.uploaded_by,
  };
  const placeholder = await requestedOfType(tx, entry, type);
  const row = placeholder
    ? await updateDocumentRow(tx, placeholder, { ...file, status: 'UPLOADED', approved_by: null, rejection_reason: null }, now)
    : await insertDocumentRow(tx, {
        entry_id: entry.id,
        workspace_id: entry.workspace_id,
        document_name: doc.document_name,
        document_type: type,
        status: 'UPLOADED',
        ...file,
        approved_by: null,
        comment: null,
        rejection_reason: null,
        created_at: now,
        id: doc.id,
      });
  const auto = attachedBy === null;
  const data = {
    documentId: row.id,
    documentName: row.document_name,
    documentType: row.document_type,
    mimeType: row.mime_type,
    fileSize: row.file_size,
    sha256: row.sha256,
    inboxDocumentId: doc.id,
    ...(placeholder ? { fulfilled: true } : {}),
    ...(auto ? { auto: true } : {}),
  };
  await recordDocumentChange(tx, entry, 'DOCUMENT_UPLOADED', data, who, now);
  const attached = await markAttached(tx, doc.id, { entryId: entry.id, documentId: row.id, attachedBy, auto, now });
  const object = presentInboxDocument(attached, extractionOf(doc.x));
  await publish(tx, { workspaceId: entry.workspace_id, type: 'document.attached', object, data: auto ? { auto: true } : undefined });
  return object;
}
