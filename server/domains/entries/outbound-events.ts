import type { Transaction } from '../../db/database.js';
import {
  outboxCtesSql,
  outboxRows,
  publish,
  publishMany,
  wakeWorkersAfterCommit,
  type PublishedEventType,
} from '../outbound-webhooks/index.js';
import { presentEntry, type EntryRow } from './entry-rows.js';
import type { DerivedEntry } from './core/reactions.js';

/**
 * The outbound events of entry changes (CONTRACT §15), built by the ledger core itself (webhooks only stores and
 * delivers them, and imports no domain): each event carries the entry as that change left it.
 * A refund, reimbursement or correction is announced by its own type (object: the new entry, with
 * `data.originalEntryId`) instead of entry.created.
 */

const DERIVED_TYPE: Record<DerivedEntry['linkType'], PublishedEventType> = {
  REFUND: 'entry.refunded',
  REIMBURSEMENT: 'entry.reimbursed',
  CORRECTION: 'entry.corrected',
};

const event = (type: PublishedEventType, row: EntryRow, data?: Record<string, unknown>) => ({
  workspaceId: row.workspace_id,
  type,
  object: presentEntry(row),
  data,
});

/** entry.created, or the derived entry's own type (object: the new entry, with `data.originalEntryId`). */
const createdEvents = (rows: EntryRow[], derived?: DerivedEntry) =>
  derived
    ? rows.map((r) => event(DERIVED_TYPE[derived.linkType], r, { originalEntryId: derived.originalEntryId }))
    : rows.map((r) => event('entry.created', r));

export const entryEvents = {
  /** New entries (one statement for an ingest batch). */
  async created(tx: Transaction, rows: EntryRow[], derived?: DerivedEntry): Promise<void> {
    await publishMany(tx, createdEvents(rows, derived));
  },
  /**
   * The same events as CTEs of the ledger core's insert of the entry (one round trip less): the outbox CTEs over
   * parameter `events` (bind `json` to it) and `now`.
   */
  createdOutbox(
    tx: Transaction,
    rows: EntryRow[],
    derived?: DerivedEntry,
  ): { json: string; ctes: (events: string, now: string) => string } {
    wakeWorkersAfterCommit(tx);
    return { json: outboxRows(createdEvents(rows, derived)).json, ctes: outboxCtesSql };
  },
  /** Fields or tags changed. */
  async updated(tx: Transaction, after: EntryRow): Promise<void> {
    await publish(tx, event('entry.updated', after));
  },
  /** entry.voided when it became VOIDED, else entry.status_changed (with the previous status). */
  async statusChanged(tx: Transaction, before: EntryRow, after: EntryRow): Promise<void> {
    const type = after.entry_status === 'VOIDED' ? 'entry.voided' : 'entry.status_changed';
    await publish(tx, event(type, after, { previousStatus: before.entry_status }));
  },
  /** The reconciled flag flipped, for one entry or every entry of a bank match (one statement). */
  async reconciled(tx: Transaction, changed: EntryRow[]): Promise<void> {
    await publishMany(
      tx,
      changed.map((row) => event(row.is_reconciled ? 'entry.reconciled' : 'entry.unreconciled', row)),
    );
  },
};
