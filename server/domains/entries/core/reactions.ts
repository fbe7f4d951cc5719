import type { Transaction } from '../../../db/database.js';
import type { EntryRow } from '../entry-rows.js';
import type { EventActor } from '../events.js';

/**
 * What other domains do, inside the same transaction, when the ledger core changes an entry.
 * The core calls these members at the point of the change (see ledger.ts); ONE file,
 * server/domains/reactions.ts, says which domain function answers each of them.
 */
/** CONTRACT §17: an entry's valuation in its workspace's base currency; all three null without a rate. */
export type EntryValuation = { fxRate: string | null; fxRateDate: string | null; amountBaseCents: number | null };
export type ValuationRequest = { currency: string; entryDate: string; amountCents: number };

export type EntryReactions = {
  /** New entries, and edits of amount or date: their valuations (fx), in input order, one statement per batch. */
  valueEntries(tx: Transaction, workspaceId: number, items: ValuationRequest[]): Promise<EntryValuation[]>;
  /** New entries (any source): queue the reviews their connections require. True when a reaction changed their rows. */
  entriesCreated(tx: Transaction, created: EntryRow[], actor: EventActor): Promise<boolean>;
  /** Fields of an entry changed: re-queue a CHANGES_REQUESTED review, mark SYNCED copies STALE. */
  entryEdited(tx: Transaction, before: EntryRow, after: EntryRow, actor: EventActor): Promise<void>;
  /** The status moved (void, cancel, review decision, webhook, full refund, correction). */
  entryStatusChanged(tx: Transaction, before: EntryRow, after: EntryRow, actor: EventActor): Promise<void>;
};

let wired: EntryReactions | undefined;

/** Called once by server/domains/reactions.ts (wireDomainReactions); a second call replaces nothing. */
export function wireReactions(reactions: EntryReactions): void {
  wired ??= reactions;
}

export function reactions(): EntryReactions {
  if (!wired) throw new Error('Entry reactions are not wired: call wireDomainReactions() at start-up');
  return wired;
}
