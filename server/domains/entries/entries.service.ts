import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { CreateEntryInput, EntryDetail, EntryObject, UpdateEntryInput } from '../../../shared/contracts/entries.js';
import { assertPeriodsOpen, closedPeriodNameSql, sharedPeriodLockSql } from '../periods/index.js';
import { loadEntry, lockEntry, presentEntry, updateEntryRow, type EntryRow } from './entry-rows.js';
import { derivedTotal, insertEntry, setEntryTags, tagIdsOf } from './entry-writes.js';
import { byUser, recordEvent } from './events.js';
import { assertReferences, manualSourceId } from './references.js';
import { loadEntryDetail } from './entry-detail.js';
import { entryHooks } from './entry-hooks.js';

export const FROZEN_STATUSES = ['VOIDED', 'CANCELLED'] as const;

export function assertNotFrozen(row: EntryRow, doing: string): void {
  if ((FROZEN_STATUSES as readonly string[]).includes(row.entry_status)) {
    throw conflict(`A ${row.entry_status} entry cannot be ${doing}`);
  }
}

/** The project (404 when the actor cannot see it), with its workspace's period lock taken shared. */
async function lockedProjectForActor(actor: Actor, projectId: number, tx: Transaction) {
  const [project] = await db().query<{ id: number; workspace_id: number }>(
    `SELECT id, workspace_id, ${sharedPeriodLockSql('workspace_id')}::text AS locked FROM projects WHERE id = :id`,
    { replacements: { id: projectId }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (!project || !scope.canSeeProjectObject(actor, project.workspace_id, project.id)) throw notFound('Project');
  return project;
}

/** After the lock: the closed period at `date`, the workspace's MANUAL source and an id for the new entry. */
async function prepareNewEntry(tx: Transaction, workspaceId: number, date: string) {
  const [row] = await db().query<{ closed_period: string | null; manual_source_id: number | null; entry_id: number }>(
    `SELECT ${closedPeriodNameSql(':ws', ':date')} AS closed_period,
            (SELECT id FROM entry_sources WHERE workspace_id = :ws AND kind = 'MANUAL') AS manual_source_id,
            nextval(pg_get_serial_sequence('entries', 'id'))::bigint AS entry_id`,
    { replacements: { ws: workspaceId, date }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (row.closed_period !== null) throw conflict(`${date} is in the closed accounting period "${row.closed_period}"`);
  return row;
}

export async function createEntry(actor: Actor, input: CreateEntryInput): Promise<EntryObject> {
  if (input.items?.length) {
    const sum = input.items.reduce((s, it) => s + it.amountCents, 0);
    if (sum !== input.amountCents) throw badRequest(`Line items sum to ${sum}, not to amountCents ${input.amountCents}`);
  }
  return transaction(async (tx) => {
    const project = await lockedProjectForActor(actor, input.projectId, tx);
    const ws = project.workspace_id;
    await assertReferences(tx, ws, {
      partyIds: [input.fromPartyId, input.toPartyId],
      tagIds: input.tagIds,
      entrySourceId: input.entrySourceId,
    });
    const prepared = await prepareNewEntry(tx, ws, input.entryDate);
    const row = await insertEntry(
      tx,
      {
        ...input,
        id: prepared.entry_id,
        workspaceId: ws,
        entrySourceId: input.entrySourceId ?? prepared.manual_source_id ?? (await manualSourceId(tx, ws)),
        createdBy: actor.userId,
      },
      byUser(actor),
    );
    return presentEntry(row);
  });
}

const EDITABLE: [keyof Omit<UpdateEntryInput, 'id'>, keyof EntryRow][] = [
  ['description', 'description'],
  ['reference', 'reference'],
  ['entryDate', 'entry_date'],
  ['amountCents', 'amount_cents'],
  ['fromPartyId', 'from_party_id'],
  ['toPartyId', 'to_party_id'],
  ['excludeFromSync', 'exclude_from_sync'],
];

export async function updateEntry(actor: Actor, input: UpdateEntryInput): Promise<EntryObject> {
  return transaction(async (tx) => {
    const row = await lockEntry(actor, input.id, tx);
    assertNotFrozen(row, 'edited');
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    const columns: Record<string, unknown> = {};
    for (const [field, column] of EDITABLE) {
      const next = input[field];
      if (next === undefined || next === row[column]) continue;
      changes[field] = { from: row[column], to: next };
      columns[column] = next;
    }
    await assertPeriodsOpen(tx, row.workspace_id, [row.entry_date, input.entryDate]);
    if (Object.keys(changes).length === 0) return presentEntry(row);
    await assertReferences(tx, row.workspace_id, { partyIds: [input.fromPartyId, input.toPartyId] });
    if (input.amountCents !== undefined && input.amountCents !== row.amount_cents) {
      await assertAmountCoversDerived(tx, row, input.amountCents);
    }
    const updated = await updateEntryRow(tx, row.id, columns, clock.now());
    await recordEvent(tx, updated, 'ENTRY_UPDATED', { changes }, byUser(actor));
    await entryHooks.changed(tx, row, updated, 'EDITED', byUser(actor));
    return presentEntry(await loadEntry(null, row.id, tx));
  });
}

async function assertAmountCoversDerived(tx: Transaction, row: EntryRow, amount: number): Promise<void> {
  const used = await derivedTotal(tx, row.id, ['REFUND', 'REIMBURSEMENT']);
  if (amount < used) throw conflict(`amountCents ${amount} is below the ${used} already refunded or reimbursed`);
  await assertFitsOriginal(tx, row, amount);
  const [items] = await db().query<{ n: number; total: number }>(
    'SELECT count(*)::int AS n, COALESCE(SUM(amount_cents), 0)::bigint AS total FROM entry_items WHERE entry_id = :id',
    { replacements: { id: row.id }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (items.n > 0 && items.total !== amount) throw conflict(`The entry's line items sum to ${items.total}, not to ${amount}`);
}

/**
 * A refund or reimbursement entry may not grow past what its original has left (CONTRACT §5:
 * refunds never together exceed the original, total reimbursed never above it). The original
 * is locked, as a new refund or reimbursement locks it, so the two are checked one after the other.
 */
async function assertFitsOriginal(tx: Transaction, row: EntryRow, amount: number): Promise<void> {
  const [link] = await db().query<{ original_entry_id: number; link_type: 'REFUND' | 'REIMBURSEMENT' }>(
    `SELECT original_entry_id, link_type FROM entry_links WHERE derived_entry_id = :id AND link_type IN ('REFUND', 'REIMBURSEMENT')`,
    { replacements: { id: row.id }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (!link) return;
  const original = await lockEntry(null, Number(link.original_entry_id), tx);
  const others = Number(await derivedTotal(tx, original.id, [link.link_type])) - Number(row.amount_cents);
  if (others + amount > Number(original.amount_cents)) {
    const what = link.link_type === 'REFUND' ? 'refunds' : 'reimbursements';
    throw conflict(`amountCents ${amount} would take the ${what} of entry #${original.id} above its ${original.amount_cents}`);
  }
}

export async function replaceTags(actor: Actor, id: number, tagIds: number[]): Promise<EntryObject> {
  return transaction(async (tx) => {
    const row = await lockEntry(actor, id, tx);
    assertNotFrozen(row, 'retagged');
    await assertReferences(tx, row.workspace_id, { tagIds });
    const before = await tagIdsOf(tx, id);
    const after = [...new Set(tagIds)].sort((a, b) => a - b);
    if (before.join() === after.join()) return presentEntry(row);
    await setEntryTags(tx, row, after);
    const updated = await updateEntryRow(tx, id, {}, clock.now());
    await recordEvent(tx, updated, 'TAGS_CHANGED', { from: before, to: after }, byUser(actor));
    return presentEntry(updated);
  });
}

export async function reconcileEntry(actor: Actor, id: number, isReconciled: boolean): Promise<EntryObject> {
  return transaction(async (tx) => {
    const row = await lockEntry(actor, id, tx);
    assertNotFrozen(row, 'reconciled');
    if (row.is_reconciled === isReconciled) return presentEntry(row);
    const now = clock.now();
    const updated = await updateEntryRow(
      tx,
      id,
      { is_reconciled: isReconciled, reconciled_at: isReconciled ? now : null, reconciled_by: isReconciled ? actor.userId : null },
      now,
    );
    await recordEvent(tx, updated, isReconciled ? 'RECONCILED' : 'UNRECONCILED', {}, byUser(actor));
    return presentEntry(updated);
  });
}

export const getEntryDetail = (actor: Actor, id: number): Promise<EntryDetail> => loadEntryDetail(actor, id);
