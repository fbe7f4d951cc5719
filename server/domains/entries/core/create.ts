import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { conflict } from '../../../lib/errors.js';
import type { LinkType } from '../../../../shared/contracts/entries.js';
import { closedPeriodNameSql, sharedPeriodLockSql } from '../../periods/index.js';
import type { EntryRow } from '../entry-rows.js';
import { insertEntry, linkEntries, tagIdsOf, type NewEntry } from '../entry-writes.js';
import { recordEvent, type EventActor } from '../events.js';
import { assertReferences, manualSourceId } from '../references.js';
import { assertCaps } from './caps.js';
import { reactions, type CreateTrigger, type NewEntryFields, type PreparedNewEntries } from './reactions.js';

export type EntryDraft = Omit<NewEntry, 'entrySourceId'> & { entrySourceId?: number };
/** How the entry is created: `trigger` runs the rules of CONTRACT §16 on it (none for derived entries). */
export type CreateOptions = { trigger?: CreateTrigger; bankCounterparty?: string | null };
export type DerivedFrom = { linkType: LinkType; original: EntryRow; eventData: Record<string, unknown> };

/** After the shared period lock: the closed period at `date`, the workspace's MANUAL source and an id for the new entry. */
async function prepare(tx: Transaction, workspaceId: number, date: string) {
  await db().query(`SELECT ${sharedPeriodLockSql(':ws')}`, { replacements: { ws: workspaceId }, transaction: tx });
  const [row] = await db().query<{ closed_period: string | null; manual_source_id: number | null; entry_id: number }>(
    `SELECT ${closedPeriodNameSql(':ws', ':date')} AS closed_period,
            (SELECT id FROM entry_sources WHERE workspace_id = :ws AND kind = 'MANUAL') AS manual_source_id,
            nextval(pg_get_serial_sequence('entries', 'id'))::bigint AS entry_id`,
    { replacements: { ws: workspaceId, date }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (row.closed_period !== null) throw conflict(`${date} is in the closed accounting period "${row.closed_period}"`);
  return row;
}

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
  const prepared = await prepare(tx, given.workspaceId, given.entryDate);
  // CONTRACT §4: an archived tag cannot be *added*; the replacement of a correction carries its original's tags as they are
  const carried = derivedFrom?.linkType === 'CORRECTION' ? await tagIdsOf(tx, derivedFrom.original.id) : [];
  // the references as the caller gave them (400 names the caller's mistake), then as the rules left them
  await assertReferences(tx, given.workspaceId, {
    partyIds: [given.fromPartyId, given.toPartyId],
    tagIds: given.tagIds?.filter((id) => !carried.includes(id)),
    entrySourceId: given.entrySourceId,
    categoryIds: [given.categoryId, ...(given.items ?? []).map((it) => it.categoryId)],
  });
  const ruled = opts.trigger ? await beforeCreate(tx, given, opts.trigger, opts.bankCounterparty) : undefined;
  const draft: EntryDraft = ruled ? { ...given, ...ruled.drafts[0] } : given;
  if (ruled) await assertReferences(tx, draft.workspaceId, referencesAdded(given, draft));
  const entrySourceId = draft.entrySourceId ?? prepared.manual_source_id ?? (await manualSourceId(tx, draft.workspaceId));
  const link = derivedFrom && { linkType: derivedFrom.linkType, originalEntryId: derivedFrom.original.id, ...derivedFrom.eventData };
  const [valuation] = await reactions().valueEntries(tx, draft.workspaceId, [
    { currency: draft.baseCurrency, entryDate: draft.entryDate, amountCents: draft.amountCents },
  ]);
  let row = await insertEntry(tx, { ...draft, entrySourceId, id: prepared.entry_id, valuation }, actor, link, ruled?.events[0]);
  if (derivedFrom) {
    const { linkType, original, eventData } = derivedFrom;
    await linkEntries(tx, original.workspace_id, linkType, original.id, row.id);
    const { kind, idKey } = LINK_EVENT[linkType];
    await recordEvent(tx, original, kind, { [idKey]: row.id, ...eventData }, actor);
    await assertCaps(tx, [row.id]);
  }
  if (ruled && (await ruled.afterInsert(tx, [row], actor))) row = await reloadRow(tx, row.id);
  const derived = derivedFrom && { linkType: derivedFrom.linkType, originalEntryId: derivedFrom.original.id };
  if (await reactions().entriesCreated(tx, [row], actor, derived)) row = await reloadRow(tx, row.id);
  return row;
}

/** What the rules set that the caller did not give (the rule set holds only usable ids; checked again all the same). */
function referencesAdded(given: EntryDraft, ruled: EntryDraft) {
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

export async function reloadRow(tx: Transaction, id: number): Promise<EntryRow> {
  const [row] = await db().query<EntryRow>('SELECT * FROM entries WHERE id = :id', {
    replacements: { id },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row;
}
