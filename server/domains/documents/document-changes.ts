import type { Transaction } from '../../db/database.js';
import { conflict } from '../../lib/errors.js';
import { isFrozen, ledger, type EntryRow, type EventActor, type EventKind } from '../entries/index.js';

/** CONTRACT §6: no document changes on VOIDED or CANCELLED entries. */
export function assertEntryTakesDocumentChanges(entry: EntryRow): void {
  if (isFrozen(entry.entry_status)) {
    throw conflict(`Documents of a ${entry.entry_status} entry cannot change`);
  }
}

/** The end of every document change, in its transaction: the entry's completeness, then the event (the ledger core's). */
export async function recordDocumentChange(
  tx: Transaction,
  entry: EntryRow,
  kind: Extract<EventKind, `DOCUMENT_${string}`>,
  data: Record<string, unknown>,
  who: EventActor,
  now: Date,
): Promise<void> {
  await ledger.apply(tx, [{ documentChanged: { entry, kind, data, at: now } }], who);
}
