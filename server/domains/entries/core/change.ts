import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { conflict } from '../../../lib/errors.js';
import type { EntryStatus } from '../../../../shared/contracts/entries.js';
import { assertWritable, refusalOf, writeRefusal } from './writable.js';
import { lockMany, reloadRow, updateEntryRow, type EntryRow } from '../entry-rows.js';
import { setEntryTags, tagIdsOf } from '../entry-writes.js';
import { recordEvent, recordEvents, type EventActor } from '../audit-events.js';
import { assertReferences } from '../references.js';
import { assertCaps } from './caps.js';
import { recomputeCompleteness } from './completeness.js';
import { reactions, type EntryEffects } from './reactions.js';
import { publishMany } from '../../outbound-webhooks/index.js';
import { postEntries } from '../../books/index.js';
import { DEAD_STATUSES, isFrozen, type TransitionSource } from './transitions.js';

export function assertNotFrozen(row: EntryRow, doing: string): void {
  if (isFrozen(row.entry_status)) throw conflict(`A ${row.entry_status} entry cannot be ${doing}`);
}

export type EntryEdit = Partial<{
  description: string | null;
  reference: string | null;
  entryDate: string;
  amountCents: number;
  fromPartyId: number | null;
  toPartyId: number | null;
  excludeFromSync: boolean;
  /** CONTRACT §16: an active category of the workspace, or null */
  categoryId: string | null;
  /** not editable through PATCH /entries; a rule's SET_PROJECT (a project of the same workspace) */
  projectId: number;
}>;

const EDITABLE: [keyof EntryEdit, keyof EntryRow][] = [
  ['description', 'description'],
  ['reference', 'reference'],
  ['entryDate', 'entry_date'],
  ['amountCents', 'amount_cents'],
  ['fromPartyId', 'from_party_id'],
  ['toPartyId', 'to_party_id'],
  ['excludeFromSync', 'exclude_from_sync'],
  ['categoryId', 'category_id'],
  ['projectId', 'project_id'],
];

export type Changes = Record<string, { from: unknown; to: unknown }>;

/** The fields `edit` would change on `row`, and their columns. */
export function diffEdit(row: EntryRow, edit: EntryEdit): { changes: Changes; columns: Record<string, unknown> } {
  const changes: Changes = {};
  const columns: Record<string, unknown> = {};
  for (const [field, column] of EDITABLE) {
    const next = edit[field];
    if (next === undefined || next === row[column]) continue;
    changes[field] = { from: row[column], to: next };
    columns[column] = next;
  }
  return { changes, columns };
}

/**
 * An edit of a locked entry (CONTRACT §5 edit; pulls and KEEP_EXTERNAL of §9; rules): 409 on a
 * frozen entry, a closed old or new date, line items that no longer add up, or an amount that
 * breaks a cap of refunds or reimbursements; then ENTRY_UPDATED and the edit reactions.
 * Returns the row as it is after the reactions (null when nothing changed).
 */
export async function editEntryRow(
  tx: Transaction,
  row: EntryRow,
  edit: EntryEdit,
  actor: EventActor,
  eventData: Record<string, unknown> = {},
): Promise<EntryRow | null> {
  await assertWritable(tx, row, { kind: 'edit', date: edit.entryDate });
  const { changes, columns } = diffEdit(row, edit);
  if (Object.keys(changes).length === 0) return null;
  await assertReferences(tx, row.workspace_id, {
    partyIds: [edit.fromPartyId, edit.toPartyId],
    categoryIds: [edit.categoryId],
    projectIds: [edit.projectId],
  });
  if (columns.amount_cents !== undefined) await assertNotHeldByMatch(tx, row, 'its amount changes');
  if (columns.amount_cents !== undefined) await assertItemsAddUp(tx, row.id, columns.amount_cents as number);
  if (columns.amount_cents !== undefined || columns.entry_date !== undefined) await revalueEdit(tx, row, columns);
  const updated = await updateEntryRow(tx, row, columns, clock.now());
  await recordEvent(tx, updated, 'ENTRY_UPDATED', { changes, ...eventData }, actor);
  if (columns.amount_cents !== undefined) await assertAmountCovers(tx, row, columns.amount_cents as number);
  const after = (await applyEffects(tx, await reactions().entryEdited(tx, row, updated, actor), actor))
    ? await reloadRow(tx, row.id)
    : updated;
  // CONTRACT §23: what the entry posts now (its amount, date or category changed): the old posting reversed, the new one posted
  await postEntries(tx, [after]);
  return after;
}

/**
 * What reactions asked for (DESIGN §2a), applied here in their order: their audit events; the moves of PENDING
 * entries to UNDER_REVIEW through the status table (locked in id order, each with its own event and reactions);
 * the completeness of entries whose documents changed, with the change's event; their outbound events. True when
 * an entry's row changed (it is then read again).
 */
export async function applyEffects(tx: Transaction, effects: EntryEffects, actor: EventActor): Promise<boolean> {
  let changed = false;
  for (const effect of effects) {
    if ('record' in effect) await recordEvents(tx, effect.record, actor);
    else if ('underReview' in effect) {
      for (const entry of await lockMany(tx, effect.underReview)) {
        if (entry.entry_status !== 'PENDING') continue;
        await moveEntryStatus(tx, entry, 'UNDER_REVIEW', null, actor);
        changed = true;
      }
    } else if ('documentChanged' in effect) {
      const { entry, kind, data, at } = effect.documentChanged;
      const isComplete = await recomputeCompleteness(tx, entry, at);
      await recordEvent(tx, entry, kind, { ...data, isComplete }, actor);
      changed = true;
    } else await publishMany(tx, await effect.publish(tx));
  }
  return changed;
}

/**
 * CONTRACT §17: a new amount or date values the entry again (fx_rate, fx_rate_date,
 * amount_base_cents), in the same UPDATE; ENTRY_UPDATED keeps listing the edited fields only.
 */
async function revalueEdit(tx: Transaction, row: EntryRow, columns: Record<string, unknown>): Promise<void> {
  const [v] = await reactions().valueEntries(tx, row.workspace_id, [
    {
      currency: row.base_currency.trim(),
      entryDate: (columns.entry_date as string | undefined) ?? row.entry_date,
      amountCents: (columns.amount_cents as number | undefined) ?? row.amount_cents,
    },
  ]);
  columns.fx_rate = v.fxRate;
  columns.fx_rate_date = v.fxRateDate;
  columns.amount_base_cents = v.amountBaseCents;
}

/**
 * CONTRACT §5 edit: the new amount may not fall below what has been refunded and reimbursed
 * (together); each cap alone is then checked too (a refund or reimbursement that grows).
 */
async function assertAmountCovers(tx: Transaction, row: EntryRow, amount: number): Promise<void> {
  const totals = await assertCaps(tx, row.workspace_id, [row.id]);
  const used = totals.filter((t) => t.headEntryId === row.id).reduce((sum, t) => sum + t.liveCents, 0);
  if (amount < used) throw conflict(`amountCents ${amount} is below the ${used} already refunded or reimbursed`);
}

/**
 * CONTRACT §14 "A match always balances": the amount (type, currency) of an entry in a bank match does not change
 * while the match stands (409: delete the match first). A matched entry is always reconciled (the match reconciles
 * it, and the database refuses to unreconcile it while matched), so an unreconciled one costs no query.
 */
async function assertNotHeldByMatch(tx: Transaction, row: EntryRow, doing: string): Promise<void> {
  if (!row.is_reconciled) return;
  const matchId = (await reactions().bankMatchOf(tx, row))?.matchId ?? null;
  if (matchId !== null) {
    throw conflict(
      `Entry ${row.id} is in bank match ${matchId}, which must stay balanced; delete the match (DELETE /reconciliation/matches/${matchId}) before ${doing}`,
    );
  }
}

async function assertItemsAddUp(tx: Transaction, entryId: number, amount: number): Promise<void> {
  const [items] = await db().query<{ n: number; total: number }>(
    'SELECT count(*)::int AS n, COALESCE(SUM(amount_cents), 0)::bigint AS total FROM entry_items WHERE entry_id = :id',
    { replacements: { id: entryId }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (items.n > 0 && Number(items.total) !== amount) throw conflict(`The entry's line items sum to ${items.total}, not to ${amount}`);
}

/**
 * A status move by the one table (transitions.ts) for its source: 409 when the table has no
 * such row, or a void dated in a closed period; then the event (VOIDED or STATUS_CHANGED), the
 * caps when the entry comes back to life, and the status reactions.
 */
export async function moveEntryStatus(
  tx: Transaction,
  row: EntryRow,
  to: EntryStatus,
  reason: string | null,
  actor: EventActor,
  source: TransitionSource = 'USER',
): Promise<EntryRow> {
  // the status table; CONTRACT §7: a void, or a move into or out of the counted statuses, would move a closed period's totals
  await assertWritable(tx, row, { kind: 'status', to, source });
  // a person's status change is STATUS_CHANGED whatever the target; a provider's void is VOIDED
  return writeStatus(tx, row, to, reason, actor, source !== 'USER' && to === 'VOIDED' ? 'VOIDED' : 'STATUS_CHANGED');
}

/** A void (CONTRACT §5 void, and the original of a correction): 409 when frozen or in a closed period. */
export async function voidEntryRow(tx: Transaction, row: EntryRow, reason: string, actor: EventActor): Promise<EntryRow> {
  await assertWritable(tx, row, { kind: 'void' });
  return writeStatus(tx, row, 'VOIDED', reason, actor, 'VOIDED');
}

/** The original of a full refund becomes VOIDED "Fully refunded" — unless its date is in a closed period (the lock wins). */
export async function voidFullyRefunded(tx: Transaction, original: EntryRow, actor: EventActor): Promise<void> {
  if ((await refusalOf(tx, original, { kind: 'void' })) !== null) return;
  await writeStatus(tx, original, 'VOIDED', 'Fully refunded', actor, 'VOIDED');
}

async function writeStatus(
  tx: Transaction,
  row: EntryRow,
  to: EntryStatus,
  reason: string | null,
  actor: EventActor,
  kind: 'VOIDED' | 'STATUS_CHANGED',
): Promise<EntryRow> {
  const updated = await updateEntryRow(tx, row, { entry_status: to, status_reason: reason }, clock.now());
  await recordEvent(tx, updated, kind, { from: row.entry_status, to, reason }, actor);
  if (DEAD_STATUSES.includes(row.entry_status) && !DEAD_STATUSES.includes(to)) await assertCaps(tx, row.workspace_id, [row.id]);
  const reacted = await applyEffects(tx, await reactions().entryStatusChanged(tx, row, updated, actor), actor);
  // CONTRACT §14: a void (or correction), reject or cancel dissolves the entry's bank match (a matched entry is reconciled)
  const dissolved = DEAD_STATUSES.includes(to) && row.is_reconciled && (await dissolveBankMatch(tx, updated, actor));
  // CONTRACT §23: into or out of the counted statuses, the books follow (a dissolved match's settlement went with it)
  await postEntries(tx, [updated]);
  // read again only when the row may have changed since (its match dissolved: unreconciled; a reaction)
  return reacted || dissolved ? reloadRow(tx, row.id) : updated;
}

/**
 * The entry's bank match dissolved, in the order of banking's locks (entries, then the match and its lines): the
 * match's entries locked here, banking releases its lines and the match, and the core unreconciles the entries with
 * UNRECONCILED {matchId} and their outbound events. True when there was a match.
 */
async function dissolveBankMatch(tx: Transaction, entry: EntryRow, actor: EventActor): Promise<boolean> {
  const held = await reactions().bankMatchOf(tx, entry);
  if (held === null) return false;
  const rows = await lockMany(tx, held.entryIds, entry.workspace_id);
  await reactions().releaseBankMatch(tx, entry.workspace_id, held.matchId);
  await setReconciledRows(
    tx,
    rows.map((row) => ({ row, matchId: held.matchId })),
    false,
    actor,
  );
  return true;
}

/** CONTRACT §5 tags: 409 on a frozen entry or one dated in a closed period; archived or foreign tags: 400. */
export async function setEntryTagsRow(tx: Transaction, row: EntryRow, tagIds: number[], actor: EventActor): Promise<EntryRow> {
  await assertWritable(tx, row, { kind: 'tags' });
  await assertReferences(tx, row.workspace_id, { tagIds });
  const before = await tagIdsOf(tx, row);
  const after = [...new Set(tagIds)].sort((a, b) => a - b);
  if (before.join() === after.join()) return row;
  await setEntryTags(tx, row, after);
  const updated = await updateEntryRow(tx, row, {}, clock.now());
  await recordEvent(tx, updated, 'TAGS_CHANGED', { from: before, to: after }, actor);
  await reactions().entryTagsChanged(tx, row, updated, actor);
  return updated;
}

/**
 * Reconciled flag (CONTRACT §5; bank matches of §14 pass `data.matchId`). Allowed in closed periods;
 * 409 on frozen entries — except a bank match dissolved by the void of its entry, which clears the
 * flag of that VOIDED entry. A person clearing the flag of an entry held reconciled by another
 * domain (an entry in a bank match): 409 from the reactions.
 */
export async function setReconciledRow(
  tx: Transaction,
  row: EntryRow,
  isReconciled: boolean,
  actor: EventActor,
  data: { matchId?: string } = {},
): Promise<EntryRow> {
  const [updated] = await setReconciledRows(tx, [{ row, matchId: data.matchId }], isReconciled, actor);
  return updated;
}

/**
 * `setReconciledRow` for many locked entries, set-based (bank matches and auto-match): the same
 * checks per entry, then one UPDATE and one `recordEvents` for the entries whose flag changes.
 * Returns the rows in the order given.
 */
export async function setReconciledRows(
  tx: Transaction,
  items: { row: EntryRow; matchId?: string }[],
  isReconciled: boolean,
  actor: EventActor,
): Promise<EntryRow[]> {
  for (const { row, matchId } of items) {
    const fromMatch = matchId !== undefined;
    const refusal = isReconciled || !fromMatch ? writeRefusal(row, { kind: 'reconcile' }, () => undefined) : null;
    if (refusal !== null) throw conflict(refusal);
    if (!isReconciled && !fromMatch) await assertNotHeldByMatch(tx, row, 'unreconciling it');
  }
  const changing = items.filter((i) => i.row.is_reconciled !== isReconciled);
  if (changing.length === 0) return items.map((i) => i.row);
  const workspaceId = changing[0].row.workspace_id;
  if (changing.some((i) => i.row.workspace_id !== workspaceId)) throw new Error('setReconciledRows: entries of one workspace at a time');
  const now = clock.now();
  const updated = await db().query<EntryRow>(
    `UPDATE entries SET is_reconciled = $2, reconciled_at = $3::timestamptz, reconciled_by = $4::uuid, updated_at = $5
      WHERE workspace_id = $6::int AND id = ANY($1::bigint[]) RETURNING *`,
    {
      bind: [
        changing.map((i) => i.row.id),
        isReconciled,
        isReconciled ? now.toISOString() : null,
        isReconciled && actor.actorType === 'USER' ? actor.actorId : null,
        now.toISOString(),
        workspaceId,
      ],
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  const byId = new Map(updated.map((r) => [Number(r.id), r]));
  const kind = isReconciled ? 'RECONCILED' : 'UNRECONCILED';
  await recordEvents(
    tx,
    changing.map(({ row, matchId }) => ({ entry: row, kind, data: matchId === undefined ? {} : { matchId } })),
    actor,
  );
  await reactions().entriesReconciled(tx, updated, actor);
  // CONTRACT §23: a match settles its entries (SETTLEMENT), an unmatch reverses that
  await postEntries(tx, updated);
  return items.map((i) => byId.get(Number(i.row.id)) ?? i.row);
}
