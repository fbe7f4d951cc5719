import { z } from 'zod/v4';
import {
  DocumentDecisionInput,
  DocumentObject,
  DocumentPathInput,
  EntryDocumentsInput,
  RejectDocumentInput,
  RequestDocumentInput,
} from '../../../shared/contracts/documents.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import * as documents from './documents.service.js';

const TAG = 'Documents';

/** Spec §4.3 JSON endpoints; upload, fulfil and download are express routes (documents.http.ts). */
export const documentsRouter = router({
  list: authedProcedure
    .meta(op('GET', '/entries/{entryId}/documents', 'listEntryDocuments', TAG, 'Documents of the entry, oldest first', [404]))
    .input(EntryDocumentsInput)
    .output(z.array(DocumentObject))
    .query(({ ctx, input }) => documents.listDocuments(ctx.actor, input.entryId)),
  request: permitted('entry.review')
    .meta(
      op(
        'POST',
        '/entries/{entryId}/documents/request',
        'requestEntryDocument',
        TAG,
        'Request a document: a REQUESTED placeholder',
        [403, 404, 409],
      ),
    )
    .input(RequestDocumentInput)
    .output(DocumentObject)
    .mutation(({ ctx, input }) => documents.requestDocument(ctx.actor, input)),
  get: authedProcedure
    .meta(op('GET', '/entries/{entryId}/documents/{documentId}', 'getEntryDocument', TAG, 'One document of the entry', [404]))
    .input(DocumentPathInput)
    .output(DocumentObject)
    .query(({ ctx, input }) => documents.getDocument(ctx.actor, input.entryId, input.documentId)),
  approve: permitted('entry.review')
    .meta(
      op(
        'PATCH',
        '/entries/{entryId}/documents/{documentId}/approve',
        'approveEntryDocument',
        TAG,
        "Approve an UPLOADED or REJECTED document; recomputes the entry's completeness",
        [403, 404, 409],
      ),
    )
    .input(DocumentDecisionInput)
    .output(DocumentObject)
    .mutation(({ ctx, input }) => documents.approveDocument(ctx.actor, input.entryId, input.documentId)),
  reject: permitted('entry.review')
    .meta(
      op(
        'PATCH',
        '/entries/{entryId}/documents/{documentId}/reject',
        'rejectEntryDocument',
        TAG,
        'Reject an UPLOADED or APPROVED document with a reason',
        [403, 404, 409],
      ),
    )
    .input(RejectDocumentInput)
    .output(DocumentObject)
    .mutation(({ ctx, input }) => documents.rejectDocument(ctx.actor, input.entryId, input.documentId, input.reason)),
});
