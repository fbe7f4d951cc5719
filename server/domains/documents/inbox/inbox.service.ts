import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../../db/database.js';
import { badRequest, conflict } from '../../../lib/errors.js';
import { requirePermission, creatorOf, scope, type Actor } from '../../../lib/scope.js';
import type {
  AttachInboxInput,
  CreateEntryFromDocumentInput,
  InboxDocumentObject,
  ListInboxQuery,
} from '../../../../shared/contracts/documents-inbox.js';
import type { EntryObject } from '../../../../shared/contracts/entries.js';
import { byUser, ledger, loadEntry, lockEntry, presentEntry, type EntryRow } from '../../entries/index.js';
import { keepBlobForRow, releaseBlobQuietly } from '../document-blobs.js';
import { checkFile, withStoredBlob, type IncomingFile } from '../document-files.service.js';
import { nudgeExtraction } from '../extraction/extraction-queue.js';
import { loadExtraction, queueExtraction, readOf } from '../extraction/extraction-rows.js';
import { attachInTransaction, defaultTypeOf } from './attach.js';
import { partyForDocument } from './document-party.js';
import {
  extractionOf,
  insertInboxRow,
  loadInbox,
  presentInboxDocument,
  presentWithExtraction,
  SELECT_WITH_EXTRACTION,
  type InboxRowWithExtraction,
} from './inbox-rows.js';

/** POST /inbox/documents: a file stored for no entry yet (entry.create, workspace member); read after commit. */
export async function uploadToInbox(actor: Actor, input: { workspaceId: number; file: IncomingFile }): Promise<InboxDocumentObject> {
  requirePermission(actor, 'entry.create');
  scope.requireWorkspaceMember(actor, input.workspaceId);
  const file = await checkFile(input.file);
  const row = await withStoredBlob(file, () =>
    transaction(async (tx) => {
      await keepBlobForRow(tx, file);
      const inserted = await insertInboxRow(tx, {
        workspace_id: input.workspaceId,
        document_name: file.documentName,
        mime_type: file.mimeType,
        file_size: file.size,
        sha256: file.sha256,
        storage_key: file.key,
        uploaded_by: actor.userId,
      });
      await queueExtraction(tx, { workspaceId: input.workspaceId, sha256: file.sha256, storageKey: file.key, mimeType: file.mimeType });
      return inserted;
    }),
  );
  // the response shows the reading as the commit left it; a PENDING one is read from the bytes in hand
  const extraction = await loadExtraction(input.workspaceId, file.sha256);
  const pending = extraction?.status === 'PENDING';
  await nudgeExtraction(
    { workspaceId: input.workspaceId, sha256: file.sha256 },
    pending ? { bytes: file.bytes, mimeType: file.mimeType } : undefined,
  );
  return presentInboxDocument(row, extraction);
}

/** GET /inbox/documents?workspaceId=&status=: newest first, paged. */
export async function listInbox(actor: Actor, q: ListInboxQuery) {
  scope.requireWorkspaceMember(actor, q.workspaceId);
  const where = `d.workspace_id = :ws${q.status ? ' AND d.status = :status' : ''}`;
  const replacements = { ws: q.workspaceId, status: q.status ?? null, limit: q.limit, offset: q.offset };
  const [rows, [{ total }]] = await Promise.all([
    db().query<InboxRowWithExtraction>(
      `${SELECT_WITH_EXTRACTION} WHERE ${where} ORDER BY d.created_at DESC, d.id DESC LIMIT :limit OFFSET :offset`,
      {
        replacements,
        type: QueryTypes.SELECT,
      },
    ),
    db().query<{ total: number }>(`SELECT count(*)::int AS total FROM inbox_documents d WHERE ${where}`, {
      replacements,
      type: QueryTypes.SELECT,
    }),
  ]);
  return { items: rows.map(presentWithExtraction), total, limit: q.limit, offset: q.offset };
}

export async function getInboxDocument(actor: Actor, id: string): Promise<InboxDocumentObject> {
  return presentWithExtraction(await loadInbox(actor, id));
}

/** DELETE /inbox/documents/{id}: only while UNATTACHED (409); the file goes when nothing else holds it. */
export async function deleteInboxDocument(actor: Actor, id: string): Promise<{ success: true }> {
  requirePermission(actor, 'entry.create');
  const sha256 = await transaction(async (tx) => {
    const doc = await loadInbox(actor, id, tx, true);
    if (doc.status !== 'UNATTACHED') throw conflict('An attached inbox document cannot be deleted');
    await db().query('DELETE FROM inbox_documents WHERE id = :id', { replacements: { id }, transaction: tx });
    return doc.sha256;
  });
  await releaseBlobQuietly(sha256);
  return { success: true };
}

/**
 * The entry an inbox document is attached to: one the caller cannot see (another workspace's, a project it does not
 * reach) is a 404 exactly as a missing one (CONTRACT §2: never reveal that it exists); one it sees in a workspace
 * other than the document's is a 400.
 */
async function entryInWorkspace(
  actor: Actor,
  entryId: number,
  workspaceId: number,
  tx: Parameters<typeof lockEntry>[2],
): Promise<EntryRow> {
  const entry = await lockEntry(actor, entryId, tx);
  if (entry.workspace_id !== workspaceId) throw badRequest(`Entry ${entryId} is not an entry of the document's workspace`);
  return entry;
}

/** POST /inbox/documents/{id}/attach {entryId, documentType?}. */
export async function attachInboxDocument(actor: Actor, input: AttachInboxInput): Promise<InboxDocumentObject> {
  requirePermission(actor, 'entry.create');
  return transaction(async (tx) => {
    const doc = await loadInbox(actor, input.id, tx, true);
    if (doc.status !== 'UNATTACHED') throw conflict('The inbox document is already attached');
    const entry = await entryInWorkspace(actor, input.entryId, doc.workspace_id, tx);
    return attachInTransaction(tx, doc, entry, input.documentType ?? defaultTypeOf(doc), byUser(actor), actor.userId);
  });
}

const need = <T>(value: T | null | undefined, what: string): T => {
  if (value === null || value === undefined) throw badRequest(`The document's ${what} was not read; give it in the body`);
  return value;
};

/**
 * POST /inbox/documents/{id}/create-entry: the entry the document describes (EXPENSE by default;
 * amount, currency, date and reference from what was read unless given; the supplier — for INCOME
 * the customer — as counterparty, found or created by name), rules with trigger DOCUMENT, and the
 * document attached to it: one transaction.
 */
export async function createEntryFromDocument(
  actor: Actor,
  input: CreateEntryFromDocumentInput,
): Promise<{ entry: EntryObject; document: InboxDocumentObject }> {
  requirePermission(actor, 'entry.create');
  return transaction(async (tx) => {
    const doc = await loadInbox(actor, input.id, tx, true);
    if (doc.status !== 'UNATTACHED') throw conflict('The inbox document is already attached');
    const read = readOf(extractionOf(doc.x));
    const [project] = await db().query<{ id: number }>('SELECT id FROM projects WHERE id = :id AND workspace_id = :ws', {
      replacements: { id: input.projectId, ws: doc.workspace_id },
      type: QueryTypes.SELECT,
      transaction: tx,
    });
    if (!project || !scope.canSeeProjectObject(actor, doc.workspace_id, input.projectId))
      throw badRequest(`Project ${input.projectId} is not a project of the document's workspace`);
    const entryType = input.entryType ?? 'EXPENSE';
    const amountCents = need(input.amountCents ?? read?.totalCents, 'total (amountCents)');
    if (amountCents <= 0) throw badRequest("The document's total is not above 0; give amountCents");
    const counterparty = entryType === 'EXPENSE' ? read?.supplier : read?.customer;
    const partyId =
      input.partyId ?? (await partyForDocument(tx, doc.workspace_id, counterparty?.name ?? null, counterparty?.taxId ?? null));
    const number = read?.documentNumber ?? null;
    const row = await ledger.create(
      tx,
      {
        workspaceId: doc.workspace_id,
        projectId: input.projectId,
        entryType,
        baseCurrency: need(input.baseCurrency ?? read?.currency, 'currency (baseCurrency)'),
        amountCents,
        fromPartyId: entryType === 'INCOME' ? partyId : null,
        toPartyId: entryType === 'EXPENSE' ? partyId : null,
        entryDate: need(input.entryDate ?? read?.issueDate, 'issue date (entryDate)'),
        description: input.description ?? ([counterparty?.name, number].filter(Boolean).join(' ') || doc.document_name),
        reference: input.reference ?? number,
        createdBy: creatorOf(actor),
        tagIds: input.tagIds,
      },
      byUser(actor),
      undefined,
      { trigger: 'DOCUMENT', reaches: (projectId) => scope.canSeeProjectObject(actor, doc.workspace_id, projectId) },
    );
    const entry = await lockEntry(null, row.id, tx);
    const document = await attachInTransaction(tx, doc, entry, input.documentType ?? defaultTypeOf(doc), byUser(actor), actor.userId);
    return { entry: presentEntry(await loadEntry(null, row.id, tx)), document };
  });
}
