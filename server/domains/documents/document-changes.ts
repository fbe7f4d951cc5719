import type { Transaction } from '../../db/database.js';
import { conflict } from '../../lib/errors.js';
import type { EntryRow } from '../entries/entry-rows.js';
import { recordEvent, type EventActor, type EventKind } from '../entries/events.js';
import { recomputeCompleteness } from './completeness.js';

/** CONTRACT §6: no document changes on VOIDED or CANCELLED entries. */
export function assertEntryTakesDocumentChanges(entry: EntryRow): void {
  if (entry.entry_status === 'VOIDED' || entry.entry_status === 'CANCELLED') {
    throw conflict(`Documents of a ${entry.entry_status} entry cannot change`);
  }
}

/** The end of every document change, in its transaction: the event, then the entry's completeness. */
export async function recordDocumentChange(
  tx: Transaction,
  entry: EntryRow,
  kind: Extract<EventKind, `DOCUMENT_${string}`>,
  data: Record<string, unknown>,
  who: EventActor,
  now: Date,
): Promise<boolean> {
  const isComplete = await recomputeCompleteness(tx, entry.id, now);
  await recordEvent(tx, entry, kind, { ...data, isComplete }, who);
  return isComplete;
}
