import type { Transaction } from '../../../db/database.js';
import { forbidden } from '../../../lib/errors.js';
import type { LinkType } from '../../../../shared/contracts/entries.js';
import { presentEntry, type EntryRow } from '../entry-rows.js';
import { tagIdsOf, type NewEntry } from '../entry-writes.js';
import type { EventActor } from '../audit-events.js';
import type { PrepareRequest } from './create-prepare.js';
import type { CreateTrigger, DerivedEntry, EntryValuation, NewEntryFields } from './reactions.js';

/*
 * The pieces of a create (create.ts tells its story): what a request is, the row its insert writes, and what
 * prepare checks for it.
 */

export type EntryDraft = Omit<NewEntry, 'entrySourceId'> & { entrySourceId?: number };
export type DerivedFrom = { linkType: LinkType; original: EntryRow; eventData: Record<string, unknown> };
/**
 * How the entry is created: `trigger` runs the rules of CONTRACT §16 on it (none for derived entries);
 * `reaches` says which projects the writer may write in (CONTRACT §11, §19: no route lets a scoped
 * caller write outside its scope), so a rule's SET_PROJECT cannot carry the entry out of them.
 */
export type CreateOptions = { trigger?: CreateTrigger; bankCounterparty?: string | null; reaches?: (projectId: number) => boolean };

/**
 * One create: its draft, whose write it is, how (the rules' trigger, reach), what it derives from (a refund,
 * reimbursement or correction: such a create comes alone), and its caller's async context (a grouped POST).
 */
export type CreateRequest = CreateOptions & {
  given: EntryDraft;
  actor: EventActor;
  derivedFrom?: DerivedFrom;
  inContext?<T>(fn: () => T): T;
};

/** Per request: its new row, or its own error (400/403/409), which writes nothing of it. */
export type CreateOutcome = { row: EntryRow } | { error: unknown };

/** The link a derived entry's ENTRY_CREATED and outbound events carry. */
export const derivedOf = (from?: DerivedFrom): DerivedEntry | undefined =>
  from && { linkType: from.linkType, originalEntryId: from.original.id };

/** What prepare checks for one create: the references as the caller gave them (less a correction's carried tags), then as the rules left them. */
export function checksOf(given: EntryDraft, draft: EntryDraft, carriedTagIds: number[]): PrepareRequest {
  return {
    given,
    draft,
    checks: [
      {
        partyIds: [given.fromPartyId, given.toPartyId],
        tagIds: given.tagIds?.filter((id) => !carriedTagIds.includes(id)),
        entrySourceId: given.entrySourceId,
        categoryIds: [given.categoryId, ...(given.items ?? []).map((it) => it.categoryId)],
      },
      referencesAdded(given, draft),
    ],
  };
}

/** CONTRACT §4: an archived tag cannot be *added*; the replacement of a correction carries its original's tags as they are. */
export async function carriedTags(tx: Transaction, request: CreateRequest): Promise<number[]> {
  return request.derivedFrom?.linkType === 'CORRECTION' ? tagIdsOf(tx, request.derivedFrom.original) : [];
}

/** 403 when a rule's SET_PROJECT moved the entry out of the projects the writer may write in. */
export function assertRuledWithinReach(given: EntryDraft, ruled: EntryDraft, reaches?: (projectId: number) => boolean): void {
  if (ruled.projectId !== given.projectId && reaches && !reaches(ruled.projectId)) {
    throw forbidden(`A rule moves this entry to project ${ruled.projectId}, outside the projects you may write in`);
  }
}

/** The row the insert of `e` writes (the outbound events, written by that same statement, show it). */
export function expectedRow(e: EntryDraft & { entrySourceId: number; id: number; valuation: EntryValuation }, now: Date): EntryRow {
  return {
    id: e.id,
    workspace_id: e.workspaceId,
    project_id: e.projectId,
    entry_source_id: e.entrySourceId,
    entry_type: e.entryType,
    entry_status: 'PENDING',
    status_reason: null,
    base_currency: e.baseCurrency,
    amount_cents: e.amountCents,
    from_party_id: e.fromPartyId ?? null,
    to_party_id: e.toPartyId ?? null,
    entry_date: e.entryDate,
    description: e.description ?? null,
    reference: e.reference ?? null,
    is_reconciled: false,
    reconciled_at: null,
    reconciled_by: null,
    exclude_from_sync: e.excludeFromSync ?? false,
    is_complete: false,
    category_id: e.categoryId ?? null,
    created_by: e.createdBy,
    created_at: now,
    updated_at: now,
    fx_rate: e.valuation.fxRate,
    fx_rate_date: e.valuation.fxRateDate,
    amount_base_cents: e.valuation.amountBaseCents,
    recurring_entry_id: e.recurringEntryId ?? null,
    occurrence_date: e.occurrenceDate ?? null,
  };
}

/** The outbound events were written from `expected`: the inserted row must present the same, or nothing commits. */
export function assertInsertedAsExpected(row: EntryRow, expected: EntryRow): void {
  // presentEntry builds both objects field by field in one order: their JSON texts are equal iff they present the same
  const a = JSON.stringify(presentEntry(row));
  const b = JSON.stringify(presentEntry(expected));
  if (a !== b) throw new Error(`create: the inserted entry ${row.id} differs from its outbound event (${a} vs ${b})`);
}

/** What the rules set that the caller did not give (the rule set holds only usable ids; checked again all the same). */
export function referencesAdded(given: EntryDraft, ruled: EntryDraft) {
  const added = <T>(before: T | null | undefined, after: T | null | undefined) => (after !== before ? [after] : []);
  return {
    projectIds: added(given.projectId, ruled.projectId),
    partyIds: [...added(given.fromPartyId, ruled.fromPartyId), ...added(given.toPartyId, ruled.toPartyId)],
    tagIds: (ruled.tagIds ?? []).filter((id) => !(given.tagIds ?? []).includes(id)),
    categoryIds: added(given.categoryId, ruled.categoryId),
  };
}

export const newEntryFields = (d: Omit<EntryDraft, 'workspaceId' | 'entryDate' | 'createdBy'>): NewEntryFields => ({
  projectId: d.projectId,
  entryType: d.entryType,
  amountCents: d.amountCents,
  baseCurrency: d.baseCurrency,
  fromPartyId: d.fromPartyId ?? null,
  toPartyId: d.toPartyId ?? null,
  description: d.description ?? null,
  reference: d.reference ?? null,
  categoryId: d.categoryId ?? null,
  tagIds: [...new Set(d.tagIds ?? [])],
  excludeFromSync: d.excludeFromSync ?? false,
});
