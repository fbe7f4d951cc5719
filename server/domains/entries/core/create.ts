import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { conflict } from '../../../lib/errors.js';
import type { LinkType } from '../../../../shared/contracts/entries.js';
import { closedPeriodNameSql, sharedPeriodLockSql } from '../../periods/index.js';
import type { EntryRow } from '../entry-rows.js';
import { insertEntry, linkEntries, type NewEntry } from '../entry-writes.js';
import { recordEvent, type EventActor } from '../events.js';
import { assertReferences, manualSourceId } from '../references.js';
import { assertCaps } from './caps.js';
import { reactions } from './reactions.js';

export type EntryDraft = Omit<NewEntry, 'entrySourceId'> & { entrySourceId?: number };
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
export async function createEntryRow(tx: Transaction, draft: EntryDraft, actor: EventActor, derivedFrom?: DerivedFrom): Promise<EntryRow> {
  const prepared = await prepare(tx, draft.workspaceId, draft.entryDate);
  await assertReferences(tx, draft.workspaceId, {
    partyIds: [draft.fromPartyId, draft.toPartyId],
    tagIds: draft.tagIds,
    entrySourceId: draft.entrySourceId,
    categoryIds: (draft.items ?? []).map((it) => it.categoryId),
  });
  const entrySourceId = draft.entrySourceId ?? prepared.manual_source_id ?? (await manualSourceId(tx, draft.workspaceId));
  const link = derivedFrom && { linkType: derivedFrom.linkType, originalEntryId: derivedFrom.original.id, ...derivedFrom.eventData };
  const [valuation] = await reactions().valueEntries(tx, draft.workspaceId, [
    { currency: draft.baseCurrency, entryDate: draft.entryDate, amountCents: draft.amountCents },
  ]);
  let row = await insertEntry(tx, { ...draft, entrySourceId, id: prepared.entry_id, valuation }, actor, link);
  if (derivedFrom) {
    const { linkType, original, eventData } = derivedFrom;
    await linkEntries(tx, original.workspace_id, linkType, original.id, row.id);
    const { kind, idKey } = LINK_EVENT[linkType];
    await recordEvent(tx, original, kind, { [idKey]: row.id, ...eventData }, actor);
    await assertCaps(tx, [row.id]);
  }
  if (await reactions().entriesCreated(tx, [row], actor)) row = await reloadRow(tx, row.id);
  return row;
}

export async function reloadRow(tx: Transaction, id: number): Promise<EntryRow> {
  const [row] = await db().query<EntryRow>('SELECT * FROM entries WHERE id = :id', {
    replacements: { id },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row;
}
