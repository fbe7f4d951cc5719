import type { Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { forbidden } from '../../../lib/errors.js';
import type { LinkType } from '../../../../shared/contracts/entries.js';
import { presentEntry, reloadRow, type EntryRow } from '../entry-rows.js';
import { insertEntry, linkEntries, tagIdsOf, type NewEntry } from '../entry-writes.js';
import { recordEvent, type EventActor } from '../audit-events.js';
import { manualSourceId } from '../references.js';
import { assertCaps } from './caps.js';
import { prepare } from './create-prepare.js';
import { applyEffects } from './change.js';
import { postEntries } from '../../books/index.js';
import { reactions, type CreateTrigger, type EntryValuation, type NewEntryFields, type PreparedNewEntries } from './reactions.js';

export type EntryDraft = Omit<NewEntry, 'entrySourceId'> & { entrySourceId?: number };
/**
 * How the entry is created: `trigger` runs the rules of CONTRACT §16 on it (none for derived entries);
 * `reaches` says which projects the writer may write in (CONTRACT §11, §19: no route lets a scoped
 * caller write outside its scope), so a rule's SET_PROJECT cannot carry the entry out of them.
 */
export type CreateOptions = { trigger?: CreateTrigger; bankCounterparty?: string | null; reaches?: (projectId: number) => boolean };
export type DerivedFrom = { linkType: LinkType; original: EntryRow; eventData: Record<string, unknown> };

const LINK_EVENT = {
  REFUND: { kind: 'REFUND_CREATED', idKey: 'refundEntryId' },
  REIMBURSEMENT: { kind: 'REIMBURSEMENT_CREATED', idKey: 'reimbursementEntryId' },
  CORRECTION: { kind: 'CORRECTION_CREATED', idKey: 'correctionEntryId' },
} as const;

/**
 * A new entry (CONTRACT §5 create, and the new entry of a refund, reimbursement or correction):
 * its references must be the workspace's (400), its date in no closed period (409); it is
 * inserted PENDING, valued in the base currency (CONTRACT §17), with items, payments, tags and ENTRY_CREATED, linked to its original (with
 * the original's *_CREATED event and the caps checked), and the reactions to new entries run.
 */
export async function createEntryRow(
  tx: Transaction,
  given: EntryDraft,
  actor: EventActor,
  derivedFrom?: DerivedFrom,
  opts: CreateOptions = {},
): Promise<EntryRow> {
  // CONTRACT §4: an archived tag cannot be *added*; the replacement of a correction carries its original's tags as they are
  const carried = derivedFrom?.linkType === 'CORRECTION' ? await tagIdsOf(tx, derivedFrom.original.id) : [];
  // the rules run in memory (the rule set is cached); they change neither the date, the currency nor the amount
  const ruled = opts.trigger ? await beforeCreate(tx, given, opts.trigger, opts.bankCounterparty) : undefined;
  const draft: EntryDraft = ruled ? { ...given, ...ruled.drafts[0] } : given;
  assertRuledWithinReach(given, draft, opts.reaches);
  // the references as the caller gave them (400 names the caller's mistake), then as the rules left them
  const prepared = await prepare(tx, given, draft, [
    {
      partyIds: [given.fromPartyId, given.toPartyId],
      tagIds: given.tagIds?.filter((id) => !carried.includes(id)),
      entrySourceId: given.entrySourceId,
      categoryIds: [given.categoryId, ...(given.items ?? []).map((it) => it.categoryId)],
    },
    ...(ruled ? [referencesAdded(given, draft)] : []),
  ]);
  const entrySourceId = draft.entrySourceId ?? prepared.manual_source_id ?? (await manualSourceId(tx, draft.workspaceId));
  const link = derivedFrom && { linkType: derivedFrom.linkType, originalEntryId: derivedFrom.original.id, ...derivedFrom.eventData };
  const valuation =
    prepared.fx_rate === null
      ? { fxRate: null, fxRateDate: null, amountBaseCents: null }
      : { fxRate: prepared.fx_rate, fxRateDate: prepared.fx_rate_date, amountBaseCents: prepared.amount_base_cents };
  const derived = derivedFrom && { linkType: derivedFrom.linkType, originalEntryId: derivedFrom.original.id };
  const fields = { ...draft, entrySourceId, id: prepared.entry_id, valuation };
  // the outbound events go with the insert when the entry stays as inserted until they are written
  const now = clock.now();
  const expected = ruled?.changesAfterInsert ? undefined : expectedRow(fields, now);
  const outbox = expected && reactions().createdOutbox(tx, [expected], derived);
  let row = await insertEntry(tx, fields, actor, link, ruled?.events[0], { now, outbox });
  if (expected) assertInsertedAsExpected(row, expected);
  if (derivedFrom) {
    const { linkType, original, eventData } = derivedFrom;
    await linkEntries(tx, original.workspace_id, linkType, original.id, row.id);
    const { kind, idKey } = LINK_EVENT[linkType];
    await recordEvent(tx, original, kind, { [idKey]: row.id, ...eventData }, actor);
    await assertCaps(tx, row.workspace_id, [row.id]);
  }
  if (ruled && (await applyEffects(tx, await ruled.afterInsert(tx, [row]), actor))) row = await reloadRow(tx, row.id);
  const soFar = { published: outbox !== undefined, reviewsDue: prepared.reviews_due, budgetsDue: prepared.budgets_due };
  if (await applyEffects(tx, await reactions().entriesCreated(tx, [row], actor, derived, soFar), actor)) row = await reloadRow(tx, row.id);
  // CONTRACT §23: the books post what the new entry posts (ENTRY), in this transaction
  await postEntries(tx, [row]);
  return row;
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

/** The rules of the trigger on one new entry (CONTRACT §16), inside the creating transaction. */
function beforeCreate(
  tx: Transaction,
  draft: EntryDraft,
  trigger: CreateTrigger,
  bankCounterparty?: string | null,
): Promise<PreparedNewEntries> {
  return reactions().entriesBeforeCreate(tx, draft.workspaceId, trigger, [newEntryFields(draft)], {
    bankCounterparties: [bankCounterparty],
  });
}
