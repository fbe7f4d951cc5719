/**
 * The ledger core's public surface: the only entries module other domains import (DESIGN §2a).
 * Every change of an entry goes through `ledger`; each write runs in the caller's transaction,
 * checks the rules (frozen states, closed periods, the status table, the caps), records its
 * audit event and calls the reactions wired in server/domains/reactions.ts.
 */
import { createEntryRow } from './core/create.js';
import {
  applyEffects,
  editEntryRow,
  moveEntryStatus,
  setEntryTagsRow,
  setReconciledRow,
  setReconciledRows,
  voidEntryRow,
} from './core/change.js';
import { insertIngestedRows } from './core/ingest-rows.js';
import { recomputeCompleteness } from './core/completeness.js';
import { recordEvent, recordEvents } from './audit-events.js';
import { setValuationRows } from './core/valuations.js';
import { closedPeriodsAt } from './core/period-check.js';
import { lockMany } from './entry-rows.js';
import { assertWritable, writeRefusal } from './core/writable.js';

export const ledger = {
  /** The only way to lock entries: the rows of the ids, locked in id order (of one workspace when given). */
  lockMany,
  /** A new entry, optionally derived from an original (refund, reimbursement, correction). */
  create: createEntryRow,
  /** A batch of new entries from an integration (set-based; the caller has applied the per-item rules). */
  createIngested: insertIngestedRows,
  edit: editEntryRow,
  setStatus: moveEntryStatus,
  void: voidEntryRow,
  setTags: setEntryTagsRow,
  setReconciled: setReconciledRow,
  /** The reconciled flag of many locked entries (bank matches), set-based. */
  setReconciledMany: setReconciledRows,
  recomputeCompleteness,
  /** CONTRACT §17: new valuations of locked entries (fx revalue), with FX_REVALUED {from, to} each. */
  setValuations: setValuationRows,
  /** An audit event of another domain's change on the entry (review, sync, document, webhook, note). */
  recordEvent,
  recordEvents,
  /** CONTRACT §7: date → name of its closed period, for the dates in one (the shared period lock taken first). */
  closedPeriodsAt,
  /** THE writability check (frozen states, status table, closed periods): 409 when the change may not be written. */
  assertWritable,
  /** The same check on facts the caller already has (closed periods by date): the refusal message, or null. */
  writeRefusal,
  /** What a reaction returned, done (events, moves UNDER_REVIEW, outbound events): for changes outside a reaction too. */
  apply: applyEffects,
};

export type { CreateOptions, EntryDraft } from './core/create.js';
export type { CreateTrigger, EntryEffects, NewEntryFields, PreparedNewEntries } from './core/reactions.js';
export type { EntryEdit } from './core/change.js';
export type { Change } from './core/writable.js';
export { assertNotFrozen, diffEdit } from './core/change.js';
export { capTotals } from './core/caps.js';
export { wireReactions, type DerivedEntry, type EntryReactions, type EntryValuation, type ValuationRequest } from './core/reactions.js';
export type { ValuationChange } from './core/valuations.js';
export { canMove, DEAD_STATUSES, FROZEN_STATUSES, isFrozen, TRANSITIONS, type TransitionSource } from './core/transitions.js';
export { loadEntry, lockEntry, presentEntry, type EntryRow } from './entry-rows.js';
export { byUser, canonicalJson, SYSTEM, type EventActor, type EventKind } from './audit-events.js';
export { entryEvents } from './outbound-events.js';
export { entriesRouter } from './entries.router.js';
export { entriesExportRoutes } from './export.http.js';

/** The entry use cases, for the demo seed (every other caller goes through the routers). */
export { createEntry, reconcileEntry } from './entries.service.js';
export { changeStatus, correctEntry, refundEntry, reimburseEntry } from './lifecycle.js';
export { addNote } from './notes.service.js';
/** CONTRACT §7's 409 message for a date in a closed period, one wording wherever it is refused. */
export { closedPeriodMessage } from './core/period-check.js';
