import { transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { todayUtc } from '../../lib/dates.js';
import { badRequest, conflict } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import type { EntryObject, EntryStatus, EntryType } from '../../../shared/contracts/entries.js';
import { assertPeriodsOpen, closedPeriodAt } from '../periods/index.js';
import { lockEntry, presentEntry, updateEntryRow, type EntryRow } from './entry-rows.js';
import { derivedTotal, insertEntry, linkEntries, tagIdsOf } from './entry-writes.js';
import { assertNotFrozen } from './entries.service.js';
import { byUser, recordEvent, type EventActor } from './events.js';
import { assertReferences } from './references.js';
import { entryHooks, type EntryChange } from './entry-hooks.js';

/** CONTRACT §5 status table: from → the statuses it may move to. */
export const TRANSITIONS: Record<EntryStatus, readonly EntryStatus[]> = {
  PENDING: ['UNDER_REVIEW', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED'],
  UNDER_REVIEW: ['PENDING', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED'],
  COMPLETED: ['VOIDED'],
  REJECTED: ['PENDING', 'VOIDED'],
  CANCELLED: [],
  VOIDED: [],
};
export const REASON_REQUIRED: readonly EntryStatus[] = ['REJECTED', 'CANCELLED', 'VOIDED'];

const opposite = (t: EntryType): EntryType => (t === 'INCOME' ? 'EXPENSE' : 'INCOME');

/** Sets the status inside the caller's transaction and records the event (no table check here). */
export async function applyStatus(
  tx: Transaction,
  row: EntryRow,
  to: EntryStatus,
  reason: string | null,
  actor: EventActor,
  kind: 'STATUS_CHANGED' | 'VOIDED' = 'STATUS_CHANGED',
): Promise<EntryRow> {
  const updated = await updateEntryRow(tx, row.id, { entry_status: to, status_reason: reason }, clock.now());
  await recordEvent(tx, updated, kind, { from: row.entry_status, to, reason }, actor);
  const change: EntryChange = kind === 'VOIDED' || to === 'VOIDED' ? 'VOIDED' : 'STATUS_CHANGED';
  await entryHooks.changed(tx, row, updated, change, actor);
  return updated;
}

export async function changeStatus(actor: Actor, input: { id: number; status: EntryStatus; reason?: string }): Promise<EntryObject> {
  if (REASON_REQUIRED.includes(input.status) && !input.reason) throw badRequest(`A reason is required to set ${input.status}`);
  return transaction(async (tx) => {
    const row = await lockEntry(actor, input.id, tx);
    if (!TRANSITIONS[row.entry_status].includes(input.status)) {
      throw conflict(`An entry cannot move from ${row.entry_status} to ${input.status}`);
    }
    if (input.status === 'VOIDED') await assertPeriodsOpen(tx, row.workspace_id, [row.entry_date]);
    return presentEntry(await applyStatus(tx, row, input.status, input.reason ?? null, byUser(actor)));
  });
}

export async function voidEntry(actor: Actor, input: { id: number; reason: string }): Promise<EntryObject> {
  return transaction(async (tx) => {
    const row = await lockEntry(actor, input.id, tx);
    assertNotFrozen(row, 'voided');
    await assertPeriodsOpen(tx, row.workspace_id, [row.entry_date]);
    return presentEntry(await applyStatus(tx, row, 'VOIDED', input.reason, byUser(actor), 'VOIDED'));
  });
}

const NOT_DERIVABLE: readonly EntryStatus[] = ['VOIDED', 'REJECTED', 'CANCELLED'];

function assertDerivable(row: EntryRow, what: string): void {
  if (NOT_DERIVABLE.includes(row.entry_status)) throw conflict(`A ${row.entry_status} entry cannot be ${what}`);
}

/**
 * A refund: the original row stays locked for the whole transaction, so parallel refunds
 * are summed one after another and can never together exceed the original.
 */
export async function refundEntry(
  actor: Actor,
  input: { id: number; amountCents: number; description?: string; entryDate?: string },
): Promise<EntryObject> {
  return transaction(async (tx) => {
    const original = await lockEntry(actor, input.id, tx);
    assertDerivable(original, 'refunded');
    const entryDate = input.entryDate ?? todayUtc();
    await assertPeriodsOpen(tx, original.workspace_id, [entryDate]);
    const refunded = await derivedTotal(tx, original.id, ['REFUND']);
    const remaining = original.amount_cents - refunded;
    if (input.amountCents > remaining) throw conflict(`Refund of ${input.amountCents} exceeds the ${remaining} that remains refundable`);
    const who = byUser(actor);
    const refund = await insertEntry(
      tx,
      {
        workspaceId: original.workspace_id,
        projectId: original.project_id,
        entrySourceId: original.entry_source_id,
        entryType: opposite(original.entry_type),
        baseCurrency: original.base_currency.trim(),
        amountCents: input.amountCents,
        fromPartyId: original.to_party_id,
        toPartyId: original.from_party_id,
        entryDate,
        description: input.description ?? `Refund of entry #${original.id}`,
        reference: original.reference,
        createdBy: actor.userId,
      },
      who,
      { linkType: 'REFUND', originalEntryId: original.id },
    );
    await linkEntries(tx, original.workspace_id, 'REFUND', original.id, refund.id);
    await recordEvent(tx, original, 'REFUND_CREATED', { refundEntryId: refund.id, amountCents: input.amountCents }, who);
    const fullyRefunded = refunded + input.amountCents === original.amount_cents;
    if (fullyRefunded && original.entry_status !== 'VOIDED' && !(await closedPeriodAt(tx, original.workspace_id, original.entry_date))) {
      await applyStatus(tx, original, 'VOIDED', 'Fully refunded', who, 'VOIDED');
    }
    return presentEntry(refund);
  });
}

export async function reimburseEntry(
  actor: Actor,
  input: {
    id: number;
    amountCents: number;
    fromPartyId: number;
    toPartyId: number;
    description?: string;
    entryDate?: string;
    entryType?: EntryType;
  },
): Promise<EntryObject> {
  return transaction(async (tx) => {
    const original = await lockEntry(actor, input.id, tx);
    if (original.entry_type !== 'EXPENSE') throw conflict('Only EXPENSE entries can be reimbursed');
    assertDerivable(original, 'reimbursed');
    await assertReferences(tx, original.workspace_id, { partyIds: [input.fromPartyId, input.toPartyId] });
    const entryDate = input.entryDate ?? todayUtc();
    await assertPeriodsOpen(tx, original.workspace_id, [entryDate]);
    const reimbursed = await derivedTotal(tx, original.id, ['REIMBURSEMENT']);
    const remaining = original.amount_cents - reimbursed;
    if (input.amountCents > remaining) {
      throw conflict(`Reimbursement of ${input.amountCents} exceeds the ${remaining} that remains reimbursable`);
    }
    const who = byUser(actor);
    const entry = await insertEntry(
      tx,
      {
        workspaceId: original.workspace_id,
        projectId: original.project_id,
        entrySourceId: original.entry_source_id,
        entryType: input.entryType ?? 'INCOME',
        baseCurrency: original.base_currency.trim(),
        amountCents: input.amountCents,
        fromPartyId: input.fromPartyId,
        toPartyId: input.toPartyId,
        entryDate,
        description: input.description ?? `Reimbursement of entry #${original.id}`,
        reference: original.reference,
        createdBy: actor.userId,
      },
      who,
      { linkType: 'REIMBURSEMENT', originalEntryId: original.id },
    );
    await linkEntries(tx, original.workspace_id, 'REIMBURSEMENT', original.id, entry.id);
    await recordEvent(tx, original, 'REIMBURSEMENT_CREATED', { reimbursementEntryId: entry.id, amountCents: input.amountCents }, who);
    return presentEntry(entry);
  });
}

type CorrectInput = {
  id: number;
  reason: string;
  amountCents?: number;
  entryDate?: string;
  description?: string;
  reference?: string;
  fromPartyId?: number;
  toPartyId?: number;
};

/** Voids the original and creates its replacement in one transaction (the accounting way to change an entry). */
export async function correctEntry(actor: Actor, input: CorrectInput): Promise<EntryObject> {
  return transaction(async (tx) => {
    const original = await lockEntry(actor, input.id, tx);
    assertNotFrozen(original, 'corrected');
    const entryDate = input.entryDate ?? original.entry_date;
    await assertPeriodsOpen(tx, original.workspace_id, [original.entry_date, entryDate]);
    await assertReferences(tx, original.workspace_id, { partyIds: [input.fromPartyId, input.toPartyId] });
    const who = byUser(actor);
    await applyStatus(tx, original, 'VOIDED', input.reason, who, 'VOIDED');
    const replacement = await insertEntry(
      tx,
      {
        workspaceId: original.workspace_id,
        projectId: original.project_id,
        entrySourceId: original.entry_source_id,
        entryType: original.entry_type,
        baseCurrency: original.base_currency.trim(),
        amountCents: input.amountCents ?? original.amount_cents,
        fromPartyId: input.fromPartyId ?? original.from_party_id,
        toPartyId: input.toPartyId ?? original.to_party_id,
        entryDate,
        description: input.description ?? original.description,
        reference: input.reference ?? original.reference,
        excludeFromSync: original.exclude_from_sync,
        createdBy: actor.userId,
        tagIds: await tagIdsOf(tx, original.id),
      },
      who,
      { linkType: 'CORRECTION', originalEntryId: original.id, reason: input.reason },
    );
    await linkEntries(tx, original.workspace_id, 'CORRECTION', original.id, replacement.id);
    await recordEvent(tx, original, 'CORRECTION_CREATED', { correctionEntryId: replacement.id, reason: input.reason }, who);
    return presentEntry(replacement);
  });
}
