import type { Transaction } from '../../../db/database.js';
import type { EntryType, LinkType } from '../../../../shared/contracts/entries.js';
import type { RuleTrigger } from '../../../../shared/contracts/rules.js';
import type { EntryRow } from '../entry-rows.js';
import type { EventActor, EventKind } from '../audit-events.js';
import type { PublishInput } from '../../outbound-webhooks/index.js';

/** An audit event a reaction asks the core to record on an entry (CONTRACT §5 events: REVIEW_QUEUED, SYNC_STALE, …). */
export type EffectEvent = { entry: { id: number; workspace_id: number }; kind: EventKind; data: Record<string, unknown> };

/**
 * One thing another domain's reaction asks of the ledger core (DESIGN §2a) instead of calling back into it:
 * record these audit events; move these entries PENDING → UNDER_REVIEW (a review was queued, CONTRACT §8) through
 * the status table; recompute an entry's completeness after a change of its documents (§6), with its event; publish these outbound events (§15), built when the core reaches them, so that they show the
 * rows as the moves before them left them. The core applies a reaction's effects in their order (applyEffects).
 */
export type EntryEffect =
  | { record: EffectEvent[] }
  | { underReview: number[] }
  | { documentChanged: DocumentChange }
  | { publish: (tx: Transaction) => Promise<PublishInput[]> };

/** A document of the entry changed (CONTRACT §6): the core recomputes its completeness, then records `kind` with `isComplete`. */
export type DocumentChange = { entry: EntryRow; kind: Extract<EventKind, `DOCUMENT_${string}`>; data: Record<string, unknown>; at: Date };
export type EntryEffects = readonly EntryEffect[];

/** The fields of a new entry that may change before it is inserted (the rules of CONTRACT §16 read and set them). */
export type NewEntryFields = {
  projectId: number;
  entryType: EntryType;
  amountCents: number;
  baseCurrency: string;
  fromPartyId: number | null;
  toPartyId: number | null;
  description: string | null;
  reference: string | null;
  categoryId: string | null;
  tagIds: number[];
  excludeFromSync: boolean;
};

/** How a new entry is created, for the rules that run on it: POST /entries, an ingest batch, a bank line. */
export type CreateTrigger = RuleTrigger;

/**
 * New entries as they will be inserted, the events to record right after each one's ENTRY_CREATED
 * (in the same statement), and what to do once they are inserted (`rows[i]` is drafts[i]'s row;
 * undefined when not inserted).
 */
export type PreparedNewEntries = {
  drafts: NewEntryFields[];
  events: { kind: EventKind; data: Record<string, unknown> }[][];
  /** Once inserted: what the rules ask for the rows (the documents they request), for the core to apply. */
  afterInsert(tx: Transaction, rows: (EntryRow | undefined)[]): Promise<EntryEffects>;
  /** False when afterInsert has nothing to do (no rule requested a document): the rows stay as inserted. */
  changesAfterInsert: boolean;
};

/** What the insert of a new entry already did for entriesCreated (the create path folds it into its statements). */
export type CreatedSoFar = {
  /** its outbound events were written with the entry (createdOutbox) */
  published?: boolean;
  /** the create's first statement found no connection that would queue it for review (newEntrySql.reviewsDue) */
  reviewsDue?: boolean;
  /** the create's first statement found no budget the entry could take past its line (newEntrySql.budgetsDue) */
  budgetsDue?: boolean;
};

/** A new entry's origin when it is a refund, reimbursement or correction of another. */
export type DerivedEntry = { linkType: LinkType; originalEntryId: number };

/**
 * What other domains do, inside the same transaction, when the ledger core changes an entry.
 * The core calls these members at the point of the change (create.ts, create-prepare.ts, change.ts, ingest-rows.ts); ONE file,
 * server/domains/reactions.ts, says which domain function answers each of them.
 */
/** CONTRACT §17: an entry's valuation in its workspace's base currency; all three null without a rate. */
export type EntryValuation = { fxRate: string | null; fxRateDate: string | null; amountBaseCents: number | null };
export type ValuationRequest = { currency: string; entryDate: string; amountCents: number };

export type EntryReactions = {
  /**
   * Before new entries of one workspace are inserted (CREATE, INGEST, BANK): the rules of §16 change the
   * drafts, and once inserted RULE_APPLIED is recorded and the documents the rules request are requested.
   * `bankCounterparties[i]` is drafts[i]'s bank line counterparty (trigger BANK).
   */
  entriesBeforeCreate(
    tx: Transaction,
    workspaceId: number,
    trigger: CreateTrigger,
    drafts: NewEntryFields[],
    context: { bankCounterparties?: (string | null | undefined)[] },
  ): Promise<PreparedNewEntries>;
  /**
   * New entries (any source; `derived` for a refund, reimbursement or correction): their outbound
   * events, then the reviews their connections require (their effects, which the core applies).
   */
  entriesCreated(
    tx: Transaction,
    created: EntryRow[],
    actor: EventActor,
    derived?: DerivedEntry,
    soFar?: CreatedSoFar,
  ): Promise<EntryEffects>;
  /**
   * SQL the first statement of a create evaluates for other domains, so that they cost no round trip of their own
   * (arguments are SQL expressions): the new entry's valuation of CONTRACT §17 (a subquery of at most one row:
   * fx_rate, fx_rate_date, amount_base_cents; none without a rate), whether entriesCreated will queue it for
   * review and whether it has budgets to check (booleans).
   */
  newEntrySql: {
    valuation(ws: string, currency: string, entryDate: string, amount: string): string;
    reviewsDue(ws: string, projectId: string): string;
    budgetsDue(ws: string): string;
  };
  /**
   * The outbound events entriesCreated publishes for these new entries, as CTEs the insert of the entry runs
   * (CONTRACT §15, same transaction, one round trip less): bind `json` to the parameter passed as `events`.
   */
  createdOutbox(
    tx: Transaction,
    created: EntryRow[],
    derived?: DerivedEntry,
  ): { json: string; ctes: (events: string, now: string) => string };
  /** New entries, and edits of amount or date: their valuations (fx), in input order, one statement per batch. */
  valueEntries(tx: Transaction, workspaceId: number, items: ValuationRequest[]): Promise<EntryValuation[]>;
  /**
   * Fields of an entry changed: re-queue a CHANGES_REQUESTED review, mark SYNCED copies STALE; the effects of
   * those (a re-queue moves a PENDING entry UNDER_REVIEW) for the core to apply.
   */
  entryEdited(tx: Transaction, before: EntryRow, after: EntryRow, actor: EventActor): Promise<EntryEffects>;
  /**
   * The status moved (void, cancel, review decision, webhook, full refund, correction): open reviews cancelled,
   * SYNCED copies STALE; the effects of those for the core to apply. (The bank match is the core's own: writeStatus.)
   */
  entryStatusChanged(tx: Transaction, before: EntryRow, after: EntryRow, actor: EventActor): Promise<EntryEffects>;
  /**
   * The bank match (CONTRACT §14) the locked entry is in, with the ids of its entries, or null: while it stands the
   * entry is not unreconciled by a person nor changes its amount (409), and a move to VOIDED, CANCELLED or REJECTED
   * dissolves it.
   */
  bankMatchOf(tx: Transaction, row: EntryRow): Promise<{ matchId: string; entryIds: number[] } | null>;
  /**
   * Banking's own part of dissolving a match whose entries the core has locked: its lines UNMATCHED, the match gone.
   * The core then unreconciles the entries (UNRECONCILED {matchId}, entry.unreconciled) itself.
   */
  releaseBankMatch(tx: Transaction, workspaceId: number, matchId: string): Promise<void>;
  /** The entry's tags were replaced (its outbound entry.updated). */
  entryTagsChanged(tx: Transaction, before: EntryRow, after: EntryRow, actor: EventActor): Promise<void>;
  /** The reconciled flag flipped (manual, or a bank match of §14): entry.reconciled / entry.unreconciled. */
  entriesReconciled(tx: Transaction, changed: EntryRow[], actor: EventActor): Promise<void>;
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
