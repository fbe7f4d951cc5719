import type { Transaction } from '../../db/database.js';
import type { EntryRow } from './entry-rows.js';
import type { EventActor } from './events.js';

export type EntryChange = 'EDITED' | 'VOIDED' | 'STATUS_CHANGED';

/** Resolves true when the hook changed the new entries' rows (the writer then reads them again). */
type CreatedHook = (tx: Transaction, created: EntryRow[], actor: EventActor) => Promise<boolean>;
type ChangedHook = (tx: Transaction, before: EntryRow, after: EntryRow, change: EntryChange, actor: EventActor) => Promise<void>;

const created: CreatedHook[] = [];
const changed: ChangedHook[] = [];

/**
 * Other domains react to entry writes inside the same transaction (a review queued for a
 * new entry, a synced entry marked STALE after an edit). They subscribe once, in
 * server/domains/subscriptions.ts; the entries domain never imports them.
 */
export const entryHooks = {
  onCreated: (hook: CreatedHook) => void created.push(hook),
  onChanged: (hook: ChangedHook) => void changed.push(hook),
  /** Runs every created-hook; true when any of them changed the rows. */
  async created(tx: Transaction, rows: EntryRow[], actor: EventActor): Promise<boolean> {
    let touched = false;
    for (const hook of created) touched = (await hook(tx, rows, actor)) || touched;
    return touched;
  },
  async changed(tx: Transaction, before: EntryRow, after: EntryRow, change: EntryChange, actor: EventActor): Promise<void> {
    for (const hook of changed) await hook(tx, before, after, change, actor);
  },
};
