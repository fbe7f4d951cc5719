import type { Transaction } from '../../../db/database.js';
import { conflict } from '../../../lib/errors.js';
import type { EntryStatus } from '../../../../shared/contracts/entries.js';
import type { EntryRow } from '../entry-rows.js';
import { closedPeriodMessage, closedPeriodsAt } from './period-check.js';
import { canMove, isCounted, isFrozen, type TransitionSource } from './transitions.js';

/**
 * THE writability check of the ledger (DESIGN §2a, issue 28): whether a change may be written to an entry — the
 * frozen states and the status table of CONTRACT §5, the closed periods of §7 (creating, editing by the old or the
 * new date, voiding, retagging; a status change that voids or moves the entry into or out of the counted
 * statuses). Create, ingest batch, edit, status, void, tags, reconcile (bank matches), review decisions, rules and
 * pulls all ask it; PostgreSQL holds the same closed-period rule (migration 0023) for any path that would not.
 */
export type Change =
  | { kind: 'create'; date: string }
  | { kind: 'edit'; date?: string }
  | { kind: 'status'; to: EntryStatus; source?: TransitionSource }
  | { kind: 'void' }
  | { kind: 'tags' }
  | { kind: 'reconcile' };

type Current = Pick<EntryRow, 'entry_status' | 'entry_date'>;

const DOING: Record<Exclude<Change['kind'], 'create' | 'status'>, string> = {
  edit: 'edited',
  void: 'voided',
  tags: 'retagged',
  reconcile: 'reconciled',
};

/** The dates whose closed period decides `change` on `row`, in the order their refusal is reported. */
function datesOf(row: Current | null, change: Change): string[] {
  switch (change.kind) {
    case 'create':
      return [change.date];
    case 'edit':
      return [row!.entry_date, ...(change.date ? [change.date] : [])];
    case 'status':
      return change.to === 'VOIDED' || isCounted(row!.entry_status) !== isCounted(change.to) ? [row!.entry_date] : [];
    case 'reconcile':
      return [];
    default:
      return [row!.entry_date];
  }
}

/**
 * The refusal (a 409 message) of `change` on `row` (null for a new entry), or null when it may be written.
 * `closed(day)`: the name of the closed period containing `day`, if any (the caller has asked PostgreSQL).
 */
export function writeRefusal(row: Current | null, change: Change, closed: (day: string) => string | undefined): string | null {
  if (change.kind === 'status') {
    if (!canMove(change.source ?? 'USER', row!.entry_status, change.to))
      return `An entry cannot move from ${row!.entry_status} to ${change.to}`;
  } else if (change.kind !== 'create' && isFrozen(row!.entry_status)) {
    return `A ${row!.entry_status} entry cannot be ${DOING[change.kind]}`;
  }
  for (const day of datesOf(row, change)) {
    const name = closed(day);
    if (name !== undefined) return closedPeriodMessage(day, name);
  }
  return null;
}

/** writeRefusal with the closed periods asked of PostgreSQL (one round trip, only when a date decides it). */
export async function refusalOf(tx: Transaction, row: EntryRow, change: Change): Promise<string | null> {
  const early = writeRefusal(row, change, () => undefined);
  if (early !== null) return early;
  const dates = datesOf(row, change);
  if (dates.length === 0) return null;
  const closed = await closedPeriodsAt(tx, row.workspace_id, dates);
  return writeRefusal(row, change, (day) => closed.get(day));
}

/** 409 when `change` may not be written to the locked `row`. */
export async function assertWritable(tx: Transaction, row: EntryRow, change: Change): Promise<void> {
  const refusal = await refusalOf(tx, row, change);
  if (refusal !== null) throw conflict(refusal);
}
