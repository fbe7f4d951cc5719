import { transaction } from '../../db/database.js';
import { todayUtc } from '../../lib/dates.js';
import { badRequest, conflict } from '../../lib/errors.js';
import { creatorOf, type Actor } from '../../lib/scope.js';
import type { EntryObject, EntryStatus, EntryType } from '../../../shared/contracts/entries.js';
import { lockEntry, presentEntry, type EntryRow } from './entry-rows.js';
import { tagIdsOf } from './entry-writes.js';
import { byUser } from './audit-events.js';
import { assertCapRoom, capTotals } from './core/caps.js';
import { createEntryRow } from './core/create.js';
import { assertNotFrozen, moveEntryStatus, voidEntryRow, voidFullyRefunded } from './core/change.js';
import { DEAD_STATUSES, REASON_REQUIRED } from './core/transitions.js';

const opposite = (t: EntryType): EntryType => (t === 'INCOME' ? 'EXPENSE' : 'INCOME');

export async function changeStatus(actor: Actor, input: { id: number; status: EntryStatus; reason?: string }): Promise<EntryObject> {
  if (REASON_REQUIRED.includes(input.status) && !input.reason) throw badRequest(`A reason is required to set ${input.status}`);
  return transaction(async (tx) => {
    const row = await lockEntry(actor, input.id, tx);
    return presentEntry(await moveEntryStatus(tx, row, input.status, input.reason ?? null, byUser(actor)));
  });
}

export async function voidEntry(actor: Actor, input: { id: number; reason: string }): Promise<EntryObject> {
  return transaction(async (tx) => {
    const row = await lockEntry(actor, input.id, tx);
    return presentEntry(await voidEntryRow(tx, row, input.reason, byUser(actor)));
  });
}

function assertDerivable(row: EntryRow, what: string): void {
  if (DEAD_STATUSES.includes(row.entry_status)) throw conflict(`A ${row.entry_status} entry cannot be ${what}`);
}

/** What the new entry of a refund or reimbursement copies from its original. */
const fromOriginal = (original: EntryRow, actor: Actor) => ({
  workspaceId: original.workspace_id,
  projectId: original.project_id,
  entrySourceId: original.entry_source_id,
  baseCurrency: original.base_currency.trim(),
  reference: original.reference,
  createdBy: creatorOf(actor),
});

/**
 * A refund. The original (the head of its correction chain, since every other member is
 * VOIDED) stays locked for the whole transaction, so parallel refunds are summed one after
 * another; the core refuses a refund above what remains (409), and PostgreSQL refuses the
 * commit if anything slipped past.
 */
export async function refundEntry(
  actor: Actor,
  input: { id: number; amountCents: number; description?: string; entryDate?: string },
): Promise<EntryObject> {
  return transaction(async (tx) => {
    const original = await lockEntry(actor, input.id, tx);
    assertDerivable(original, 'refunded');
    await assertCapRoom(tx, original, 'REFUND', input.amountCents);
    const who = byUser(actor);
    const refund = await createEntryRow(
      tx,
      {
        ...fromOriginal(original, actor),
        entryType: opposite(original.entry_type),
        amountCents: input.amountCents,
        fromPartyId: original.to_party_id,
        toPartyId: original.from_party_id,
        entryDate: input.entryDate ?? todayUtc(),
        description: input.description ?? `Refund of entry #${original.id}`,
      },
      who,
      { linkType: 'REFUND', original, eventData: { amountCents: input.amountCents } },
    );
    const [total] = (await capTotals(tx, original.workspace_id, [original.id])).filter(
      (t) => t.headEntryId === original.id && t.linkType === 'REFUND',
    );
    if (total && total.liveCents === total.amountCents) await voidFullyRefunded(tx, original, who);
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
    await assertCapRoom(tx, original, 'REIMBURSEMENT', input.amountCents);
    const entry = await createEntryRow(
      tx,
      {
        ...fromOriginal(original, actor),
        entryType: input.entryType ?? 'INCOME',
        amountCents: input.amountCents,
        fromPartyId: input.fromPartyId,
        toPartyId: input.toPartyId,
        entryDate: input.entryDate ?? todayUtc(),
        description: input.description ?? `Reimbursement of entry #${original.id}`,
      },
      byUser(actor),
      { linkType: 'REIMBURSEMENT', original, eventData: { amountCents: input.amountCents } },
    );
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

/**
 * Voids the original and creates its replacement in one transaction (the accounting way to
 * change an entry). The replacement takes the original's place in every cap: it keeps the
 * original's live refunds and reimbursements, and a replaced refund stays in its original's total.
 */
export async function correctEntry(actor: Actor, input: CorrectInput): Promise<EntryObject> {
  return transaction(async (tx) => {
    const original = await lockEntry(actor, input.id, tx);
    assertNotFrozen(original, 'corrected');
    const who = byUser(actor);
    await voidEntryRow(tx, original, input.reason, who);
    const replacement = await createEntryRow(
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
        entryDate: input.entryDate ?? original.entry_date,
        description: input.description ?? original.description,
        reference: input.reference ?? original.reference,
        excludeFromSync: original.exclude_from_sync,
        createdBy: creatorOf(actor),
        tagIds: await tagIdsOf(tx, original),
      },
      who,
      { linkType: 'CORRECTION', original, eventData: { reason: input.reason } },
    );
    return presentEntry(replacement);
  });
}
