import type { Readable } from 'node:stream';
import { transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import { sniffUpload } from '../../lib/sniff.js';
import { runtime } from '../../runtime.js';
import { documentStorage } from '../../storage/document-storage.js';
import type { DocumentObject, DocumentType } from '../../../shared/contracts/documents.js';
import { loadEntry, lockEntry, type EntryRow } from '../entries/index.js';
import { byUser } from '../entries/index.js';
import { publish } from '../outbound-webhooks/index.js';
import { blobOf, keepBlobForRow, releaseBlobQuietly, storeBlob, type Blob } from './document-blobs.js';
import { assertEntryTakesDocumentChanges, recordDocumentChange } from './document-changes.js';
import { documentNameOf } from './document-names.js';
import { nudgeExtraction } from './extraction/extraction-queue.js';
import { queueExtraction } from './extraction/extraction-rows.js';
import { insertDocumentRow, loadDocument, presentDocument, updateDocumentRow, type DocumentRow } from './document-rows.js';

/** A file as received: its bytes, the client's file name and the type its part declared. */
export type IncomingFile = { bytes: Buffer; fileName: string; declaredType?: string | null };

type CheckedFile = Blob & { documentName: string; mimeType: string; size: number };

/** Name, size and sniffed type of an upload (400, 413, 415), and its SHA-256. */
export async function checkFile(file: IncomingFile): Promise<CheckedFile> {
  const documentName = documentNameOf(file.fileName);
  if (!documentName) throw badRequest('The file part needs a file name');
  if (file.bytes.length === 0) throw badRequest('The file is empty');
  const limit = runtime().config.UPLOAD_LIMIT_BYTES;
  if (file.bytes.length > limit) throw new AppError('PAYLOAD_TOO_LARGE', `The file exceeds the upload limit of ${limit} bytes`);
  const sniffed = await sniffUpload(file.bytes, { declaredType: file.declaredType, fileName: documentName });
  if (!sniffed.ok) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      sniffed.reason === 'MISMATCH'
        ? `The file is ${sniffed.sniffed}, but its part declares ${sniffed.declared}`
        : 'The file type is not allowed (PDF, PNG, JPEG, WEBP, HEIC, TIFF, GIF, CSV, plain text, XML, XLSX, DOCX or ODS)',
    );
  }
  return { ...blobOf(file.bytes), documentName, mimeType: sniffed.mimeType, size: file.bytes.length };
}

/**
 * The upload's `workspaceId` (CONTRACT §2, §6): not a member of it (of the workspace or one of
 * its projects) → 403; the entry not visible, or not in that workspace → 404.
 */
export async function entryForUpload(actor: Actor, entryId: number, workspaceId: number | undefined): Promise<EntryRow> {
  if (workspaceId !== undefined) scope.workspaceReach(actor, workspaceId);
  const entry = await loadEntry(actor, entryId);
  if (workspaceId !== undefined && entry.workspace_id !== workspaceId) throw notFound('Entry');
  return entry;
}

/**
 * The bytes are written first, then the row in one transaction with its event and the
 * entry's completeness. When the transaction fails, the file goes again unless another
 * document references the same content, so a failed upload leaves neither row nor file.
 */
export async function withStoredBlob<T>(blob: Blob, write: () => Promise<T>): Promise<T> {
  await storeBlob(blob);
  try {
    return await write();
  } catch (err) {
    await releaseBlobQuietly(blob.sha256);
    throw err;
  }
}

/** Everything an upload can be refused for before its body is read: 403, 404, 409. */
export async function assertCanUpload(actor: Actor, entryId: number, workspaceId: number): Promise<void> {
  assertEntryTakesDocumentChanges(await entryForUpload(actor, entryId, workspaceId));
}

function assertFulfillable(entry: EntryRow, doc: DocumentRow): void {
  assertEntryTakesDocumentChanges(entry);
  if (doc.status !== 'REQUESTED' && doc.status !== 'REJECTED') throw conflict(`A ${doc.status} document cannot be fulfilled`);
}

/** Same for a fulfil: 403, 404 (entry or document), 409. */
export async function assertCanFulfil(actor: Actor, input: { entryId: number; documentId: string; workspaceId?: number }) {
  const entry = await entryForUpload(actor, input.entryId, input.workspaceId);
  const doc = await loadDocument(entry.id, input.documentId);
  assertFulfillable(entry, doc);
  return doc;
}

export type UploadInput = { entryId: number; workspaceId: number; documentType: DocumentType; file: IncomingFile };

/** A new document with its file → UPLOADED; its name is the file's name without any path. */
export async function uploadDocument(actor: Actor, input: UploadInput): Promise<DocumentObject> {
  await assertCanUpload(actor, input.entryId, input.workspaceId);
  const file = await checkFile(input.file);
  const document = await withStoredBlob(file, () =>
    transaction(async (tx) => {
      const entry = await lockEntry(actor, input.entryId, tx);
      assertEntryTakesDocumentChanges(entry);
      await keepBlobForRow(tx, file);
      await queueExtraction(tx, { workspaceId: entry.workspace_id, sha256: file.sha256, storageKey: file.key, mimeType: file.mimeType });
      const now = clock.now();
      const row = await insertDocumentRow(tx, {
        entry_id: entry.id,
        workspace_id: entry.workspace_id,
        document_name: file.documentName,
        document_type: input.documentType,
        status: 'UPLOADED',
        mime_type: file.mimeType,
        file_size: file.size,
        sha256: file.sha256,
        storage_key: file.key,
        uploaded_by: actor.userId,
        approved_by: null,
        comment: null,
        rejection_reason: null,
        created_at: now,
      });
      const data = {
        documentId: row.id,
        documentName: row.document_name,
        documentType: row.document_type,
        mimeType: file.mimeType,
        fileSize: file.size,
        sha256: file.sha256,
      };
      await recordDocumentChange(tx, entry, 'DOCUMENT_UPLOADED', data, byUser(actor), now);
      await publish(tx, { workspaceId: entry.workspace_id, type: 'document.uploaded', object: presentDocument(row) });
      return { document: presentDocument(row), workspaceId: entry.workspace_id };
    }),
  );
  await nudgeExtraction({ workspaceId: document.workspaceId, sha256: file.sha256 }); // read after commit (CONTRACT §21)
  return document.document;
}

export type FulfilInput = {
  entryId: number;
  documentId: string;
  workspaceId?: number;
  documentType?: DocumentType;
  file: IncomingFile;
};

/**
 * Attaches a file to a REQUESTED placeholder, or replaces the file of a REJECTED document:
 * → UPLOADED (other statuses: 409). The requested name and type stay; a replaced file is
 * deleted once nothing references it.
 */
export async function fulfilDocument(actor: Actor, input: FulfilInput): Promise<DocumentObject> {
  const current = await assertCanFulfil(actor, input);
  if (input.documentType !== undefined && input.documentType !== current.document_type) {
    throw badRequest(`documentType must be the requested one (${current.document_type})`);
  }
  const file = await checkFile(input.file);
  const { document, replacedSha256, workspaceId } = await withStoredBlob(file, () =>
    transaction(async (tx) => {
      const entry = await lockEntry(actor, input.entryId, tx);
      const doc = await loadDocument(entry.id, input.documentId, tx, true);
      assertFulfillable(entry, doc);
      await keepBlobForRow(tx, file);
      await queueExtraction(tx, { workspaceId: entry.workspace_id, sha256: file.sha256, storageKey: file.key, mimeType: file.mimeType });
      const now = clock.now();
      const row = await updateDocumentRow(
        tx,
        doc,
        {
          status: 'UPLOADED',
          mime_type: file.mimeType,
          file_size: file.size,
          sha256: file.sha256,
          storage_key: file.key,
          uploaded_by: actor.userId,
          approved_by: null,
          rejection_reason: null,
        },
        now,
      );
      const data = { documentId: doc.id, from: doc.status, mimeType: file.mimeType, fileSize: file.size, sha256: file.sha256 };
      await recordDocumentChange(tx, entry, 'DOCUMENT_FULFILLED', { ...data, previousSha256: doc.sha256 }, byUser(actor), now);
      await publish(tx, { workspaceId: entry.workspace_id, type: 'document.uploaded', object: presentDocument(row) });
      return { document: presentDocument(row), replacedSha256: doc.sha256, workspaceId: entry.workspace_id };
    }),
  );
  await nudgeExtraction({ workspaceId, sha256: file.sha256 });
  if (replacedSha256 && replacedSha256 !== file.sha256) await releaseBlobQuietly(replacedSha256);
  return document;
}

/** The stored file of a document the caller can see; a REQUESTED placeholder has none (409). */
export async function openDocumentFile(
  actor: Actor,
  entryId: number,
  documentId: string,
): Promise<{ document: DocumentObject; stream: Readable }> {
  await loadEntry(actor, entryId);
  const row = await loadDocument(entryId, documentId);
  if (!row.storage_key) throw conflict('A REQUESTED document has no file yet');
  return { document: presentDocument(row), stream: await documentStorage().open(row.storage_key) };
}
