import { transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { conflict } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import type { DocumentObject, RequestDocumentInput } from '../../../shared/contracts/documents.js';
import { ledger, loadEntry, lockEntry, type EntryEffects, type EntryRow } from '../entries/index.js';
import { byUser, type EventActor } from '../entries/index.js';
import { publish } from '../outbound-webhooks/index.js';
import { assertEntryTakesDocumentChanges, recordDocumentChange } from './document-changes.js';
import { documentRowsOf, insertDocumentRow, loadDocument, presentDocument, updateDocumentRow } from './document-rows.js';

/** The documents of an entry, oldest first (for the entry detail too; visibility is the caller's check). */
export async function documentsOfEntry(entryId: number): Promise<DocumentObject[]> {
  return (await documentRowsOf(entryId)).map(presentDocument);
}

export async function listDocuments(actor: Actor, entryId: number): Promise<DocumentObject[]> {
  await loadEntry(actor, entryId);
  return documentsOfEntry(entryId);
}

export async function getDocument(actor: Actor, entryId: number, documentId: string): Promise<DocumentObject> {
  await loadEntry(actor, entryId);
  return presentDocument(await loadDocument(entryId, documentId));
}

type Placeholder = Omit<RequestDocumentInput, 'entryId'>;

/**
 * A REQUESTED placeholder on a locked entry, inside the caller's transaction: the request
 * endpoint uses it, and so can other domains (an accounting webhook asking for a document).
 */
export async function requestDocumentInTransaction(tx: Transaction, entry: EntryRow, input: Placeholder, who: EventActor) {
  const { document, effects } = await placeDocumentRequest(tx, entry, input);
  await ledger.apply(tx, effects, who);
  return document;
}

/**
 * The placeholder's row, and what follows from it for the ledger core to apply: the entry's completeness with
 * DOCUMENT_REQUESTED, then document.requested. The rules' reaction to a new entry returns these effects to the
 * core that called it (DESIGN §2a) instead of calling the core back.
 */
export async function placeDocumentRequest(
  tx: Transaction,
  entry: EntryRow,
  input: Placeholder,
): Promise<{ document: DocumentObject; effects: EntryEffects }> {
  assertEntryTakesDocumentChanges(entry);
  const now = clock.now();
  const row = await insertDocumentRow(tx, {
    entry_id: entry.id,
    workspace_id: entry.workspace_id,
    document_name: input.documentName,
    document_type: input.documentType,
    status: 'REQUESTED',
    mime_type: null,
    file_size: null,
    sha256: null,
    storage_key: null,
    uploaded_by: null,
    approved_by: null,
    comment: input.comment ?? null,
    rejection_reason: null,
    created_at: now,
  });
  const data = { documentId: row.id, documentName: row.document_name, documentType: row.document_type, comment: row.comment };
  const document = presentDocument(row);
  return {
    document,
    effects: [
      { documentChanged: { entry, kind: 'DOCUMENT_REQUESTED', data, at: now } },
      { publish: async () => [{ workspaceId: entry.workspace_id, type: 'document.requested', object: document }] },
    ],
  };
}

export async function requestDocument(actor: Actor, input: RequestDocumentInput): Promise<DocumentObject> {
  return transaction(async (tx) => {
    const entry = await lockEntry(actor, input.entryId, tx);
    return requestDocumentInTransaction(tx, entry, input, byUser(actor));
  });
}

/** UPLOADED or REJECTED → APPROVED; REQUESTED (no file yet) and APPROVED are refused. */
export async function approveDocument(actor: Actor, entryId: number, documentId: string): Promise<DocumentObject> {
  return transaction(async (tx) => {
    const entry = await lockEntry(actor, entryId, tx);
    const doc = await loadDocument(entryId, documentId, tx, true);
    assertEntryTakesDocumentChanges(entry);
    if (doc.status !== 'UPLOADED' && doc.status !== 'REJECTED') throw conflict(`A ${doc.status} document cannot be approved`);
    const now = clock.now();
    const row = await updateDocumentRow(tx, doc, { status: 'APPROVED', approved_by: actor.userId, rejection_reason: null }, now);
    await recordDocumentChange(tx, entry, 'DOCUMENT_APPROVED', { documentId: doc.id, from: doc.status }, byUser(actor), now);
    await publish(tx, { workspaceId: entry.workspace_id, type: 'document.approved', object: presentDocument(row) });
    return presentDocument(row);
  });
}

/** UPLOADED or APPROVED → REJECTED with its reason; REQUESTED and REJECTED are refused. */
export async function rejectDocument(actor: Actor, entryId: number, documentId: string, reason: string): Promise<DocumentObject> {
  return transaction(async (tx) => {
    const entry = await lockEntry(actor, entryId, tx);
    const doc = await loadDocument(entryId, documentId, tx, true);
    assertEntryTakesDocumentChanges(entry);
    if (doc.status !== 'UPLOADED' && doc.status !== 'APPROVED') throw conflict(`A ${doc.status} document cannot be rejected`);
    const now = clock.now();
    const row = await updateDocumentRow(tx, doc, { status: 'REJECTED', rejection_reason: reason, approved_by: null }, now);
    await recordDocumentChange(tx, entry, 'DOCUMENT_REJECTED', { documentId: doc.id, from: doc.status, reason }, byUser(actor), now);
    await publish(tx, { workspaceId: entry.workspace_id, type: 'document.rejected', object: presentDocument(row) });
    return presentDocument(row);
  });
}
