import { z } from 'zod/v4';
import {
  AttachInboxInput,
  CreateEntryFromDocumentInput,
  DocumentExtractionPath,
  DocumentSuggestion,
  EntryWithInboxDocument,
  ExtractionObject,
  InboxDocumentObject,
  InboxPage,
  InboxPath,
  ListInboxQuery,
} from '../../../../shared/contracts/documents-inbox.js';
import { Success } from '../../../../shared/contracts/common.js';
import { router } from '../../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../../trpc/procedures.js';
import { getExtraction } from '../extraction/extraction.service.js';
import * as inbox from './inbox.service.js';
import { suggestionsFor } from './suggestions.js';

const TAG = 'Inbox';

/** CONTRACT §21 JSON endpoints; the upload (multipart) is an express route (inbox.http.ts). */
export const inboxRouter = router({
  list: authedProcedure
    .meta(
      op('GET', '/inbox/documents', 'listInboxDocuments', TAG, 'Inbox documents of the workspace, newest first (paged)', [403], {
        description: 'Workspace members only. Each carries its extraction.',
      }),
    )
    .input(ListInboxQuery)
    .output(InboxPage)
    .query(({ ctx, input }) => inbox.listInbox(ctx.actor, input)),
  get: authedProcedure
    .meta(op('GET', '/inbox/documents/{id}', 'getInboxDocument', TAG, 'One inbox document with its extraction', [404]))
    .input(InboxPath)
    .output(InboxDocumentObject)
    .query(({ ctx, input }) => inbox.getInboxDocument(ctx.actor, input.id)),
  delete: permitted('entry.create')
    .meta(op('DELETE', '/inbox/documents/{id}', 'deleteInboxDocument', TAG, 'Delete an UNATTACHED inbox document', [403, 404, 409]))
    .input(InboxPath.strict())
    .output(Success)
    .mutation(({ ctx, input }) => inbox.deleteInboxDocument(ctx.actor, input.id)),
  suggestions: authedProcedure
    .meta(
      op(
        'GET',
        '/inbox/documents/{id}/suggestions',
        'suggestInboxDocumentEntries',
        TAG,
        'Entries the document may belong to, best first',
        [404],
        {
          description:
            'Up to 10 entries with a score (0..1) and reasons: the total in the same currency first, then the date near the issue date, ' +
            "the supplier against the entry's counterparty, the document number in its reference or description.",
        },
      ),
    )
    .input(InboxPath)
    .output(z.array(DocumentSuggestion).max(10))
    .query(({ ctx, input }) => suggestionsFor(ctx.actor, input.id)),
  attach: permitted('entry.create')
    .meta(
      op('POST', '/inbox/documents/{id}/attach', 'attachInboxDocument', TAG, 'Attach the document to an entry', [403, 404, 409], {
        description:
          'A REQUESTED document of that type on the entry is fulfilled by it; completeness is recomputed. 409 for an attached document, ' +
          'a VOIDED or CANCELLED entry, or one in a closed period; 404 for an entry the caller cannot see (as for a missing one); ' +
          '400 for an entry it sees in another workspace.',
      }),
    )
    .input(AttachInboxInput)
    .output(InboxDocumentObject)
    .mutation(({ ctx, input }) => inbox.attachInboxDocument(ctx.actor, input)),
  createEntry: permitted('entry.create')
    .meta(
      op(
        'POST',
        '/inbox/documents/{id}/create-entry',
        'createEntryFromInboxDocument',
        TAG,
        'Create the entry the document describes, and attach it',
        [403, 404, 409],
        {
          description:
            'EXPENSE by default; amount, currency, date and reference from the extraction unless given (400 when neither); the supplier ' +
            '(customer for INCOME) as counterparty, found or created by name; rules with trigger DOCUMENT run on it.',
        },
      ),
    )
    .input(CreateEntryFromDocumentInput)
    .output(EntryWithInboxDocument)
    .mutation(({ ctx, input }) => inbox.createEntryFromDocument(ctx.actor, input)),
  extraction: authedProcedure
    .meta(
      op('GET', '/documents/{id}/extraction', 'getDocumentExtraction', 'Documents', 'What was read from a document', [404], {
        description: 'Entry documents and inbox documents alike, with the access of the document. PENDING until the reading has run.',
      }),
    )
    .input(DocumentExtractionPath)
    .output(ExtractionObject)
    .query(({ ctx, input }) => getExtraction(ctx.actor, input.id)),
});
