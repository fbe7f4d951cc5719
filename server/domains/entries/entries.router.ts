import { z } from 'zod/v4';
import {
  AddNoteInput,
  CorrectInput,
  CreateEntryInput,
  EntryDetail,
  EntryIdInput,
  EntryObject,
  EntryPage,
  EventObject,
  ListEntriesQuery,
  NoteObject,
  ReconcileInput,
  RefundInput,
  ReimburseInput,
  RelatedEntry,
  ReplaceTagsInput,
  UpdateEntryInput,
  UpdateStatusInput,
  VerifyResult,
  VoidEntryInput,
} from '../../../shared/contracts/entries.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import * as entries from './entries.service.js';
import { loadEntryDetail } from './entry-detail.js';
import * as lifecycle from './lifecycle.js';
import * as notes from './notes.service.js';
import * as related from './related.service.js';
import { listEntries } from './list.service.js';

const TAG = 'Entries';

export const entriesRouter = router({
  list: authedProcedure
    .meta(
      op(
        'GET',
        '/entries',
        'listEntries',
        TAG,
        'List entries of a workspace with filters, sorting and offset or cursor paging (CONTRACT §18)',
        [403],
      ),
    )
    .input(ListEntriesQuery)
    .output(EntryPage)
    .query(({ ctx, input }) => listEntries(ctx.actor, input)),
  create: permitted('entry.create')
    .meta(op('POST', '/entries', 'createEntry', TAG, 'Create an entry (PENDING)', [403, 404, 409]))
    .input(CreateEntryInput)
    .output(EntryObject)
    .mutation(({ ctx, input }) => entries.createEntry(ctx.actor, input)),
  get: authedProcedure
    .meta(op('GET', '/entries/{id}', 'getEntry', TAG, 'An entry with items, transactions, documents, tags and parties', [404]))
    .input(EntryIdInput)
    .output(EntryDetail)
    .query(({ ctx, input }) => loadEntryDetail(ctx.actor, input.id)),
  update: permitted('entry.edit')
    .meta(op('PATCH', '/entries/{id}', 'updateEntry', TAG, 'Edit an entry', [403, 404, 409]))
    .input(UpdateEntryInput)
    .output(EntryObject)
    .mutation(({ ctx, input }) => entries.updateEntry(ctx.actor, input)),
  replaceTags: permitted('entry.edit')
    .meta(op('PUT', '/entries/{id}/tags', 'replaceEntryTags', TAG, "Replace the entry's tags", [403, 404, 409]))
    .input(ReplaceTagsInput)
    .output(EntryObject)
    .mutation(({ ctx, input }) => entries.replaceTags(ctx.actor, input.id, input.tagIds)),
  reconcile: permitted('entry.reconcile')
    .meta(op('PATCH', '/entries/{id}/reconcile', 'reconcileEntry', TAG, 'Mark or unmark the entry as reconciled', [403, 404, 409]))
    .input(ReconcileInput)
    .output(EntryObject)
    .mutation(({ ctx, input }) => entries.reconcileEntry(ctx.actor, input.id, input.isReconciled)),
  setStatus: permitted('entry.edit')
    .meta(op('PATCH', '/entries/{id}/status', 'updateEntryStatus', TAG, 'Change the status (CONTRACT §5 table)', [403, 404, 409]))
    .input(UpdateStatusInput)
    .output(EntryObject)
    .mutation(({ ctx, input }) => lifecycle.changeStatus(ctx.actor, input)),
  void: permitted('entry.void')
    .meta(op('POST', '/entries/{id}/void', 'voidEntry', TAG, 'Void an entry', [403, 404, 409]))
    .input(VoidEntryInput)
    .output(EntryObject)
    .mutation(({ ctx, input }) => lifecycle.voidEntry(ctx.actor, input)),
  refund: permitted('entry.void')
    .meta(op('POST', '/entries/{id}/refund', 'refundEntry', TAG, 'Create a linked refund entry; returns the new entry', [403, 404, 409]))
    .input(RefundInput)
    .output(EntryObject)
    .mutation(({ ctx, input }) => lifecycle.refundEntry(ctx.actor, input)),
  reimburse: permitted('entry.create')
    .meta(
      op('POST', '/entries/{id}/reimburse', 'reimburseEntry', TAG, 'Create a linked reimbursement of an EXPENSE entry', [403, 404, 409]),
    )
    .input(ReimburseInput)
    .output(EntryObject)
    .mutation(({ ctx, input }) => lifecycle.reimburseEntry(ctx.actor, input)),
  correct: permitted('entry.edit')
    .meta(op('POST', '/entries/{id}/correct', 'correctEntry', TAG, 'Void the entry and create its corrected replacement', [403, 404, 409]))
    .input(CorrectInput)
    .output(EntryObject)
    .mutation(({ ctx, input }) => lifecycle.correctEntry(ctx.actor, input)),
  related: authedProcedure
    .meta(op('GET', '/entries/{id}/related', 'listRelatedEntries', TAG, 'Linked refunds, reimbursements and corrections', [404]))
    .input(EntryIdInput)
    .output(z.array(RelatedEntry))
    .query(({ ctx, input }) => related.relatedEntries(ctx.actor, input.id)),
  listNotes: authedProcedure
    .meta(op('GET', '/entries/{id}/notes', 'listEntryNotes', TAG, 'Notes of the entry, newest first', [404]))
    .input(EntryIdInput)
    .output(z.array(NoteObject))
    .query(({ ctx, input }) => notes.listNotes(ctx.actor, input.id)),
  addNote: permitted('entry.note')
    .meta(op('POST', '/entries/{id}/notes', 'addEntryNote', TAG, 'Add a note (records NOTE_ADDED)', [403, 404]))
    .input(AddNoteInput)
    .output(NoteObject)
    .mutation(({ ctx, input }) => notes.addNote(ctx.actor, input.id, input.content)),
  events: authedProcedure
    .meta(op('GET', '/entries/{id}/events', 'listEntryEvents', TAG, 'The audit trail of the entry, oldest first', [404]))
    .input(EntryIdInput)
    .output(z.array(EventObject))
    .query(({ ctx, input }) => related.entryEvents(ctx.actor, input.id)),
  verifyEvents: authedProcedure
    .meta(op('GET', '/entries/{id}/events/verify', 'verifyEntryEvents', TAG, "Verify the entry's event hash chain", [404]))
    .input(EntryIdInput)
    .output(VerifyResult)
    .query(({ ctx, input }) => related.verifyEntryEvents(ctx.actor, input.id)),
});
