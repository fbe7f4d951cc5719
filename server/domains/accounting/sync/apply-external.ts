import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { conflict } from '../../../lib/errors.js';
import { entryHooks } from '../../entries/entry-hooks.js';
import { updateEntryRow, type EntryRow } from '../../entries/entry-rows.js';
import { derivedTotal } from '../../entries/entry-writes.js';
import { recordEvent, type EventActor } from '../../entries/events.js';
import { applyStatus } from '../../entries/lifecycle.js';
import { closedPeriodAt, lockPeriodsShared } from '../../periods/index.js';
import type { ExternalEntry } from '../providers/provider.js';

/**
 * Applying an external record to its local entry (pull of a SYNCED record, resolve
 * KEEP_EXTERNAL): amount, date, description, reference, and a void. Planned first, applied
 * second: a plan that the entry rules refuse (closed period, frozen entry, amount below what
 * was refunded, line items) changes nothing.
 */

type Changes = Record<string, { from: unknown; to: unknown }>;
export type ApplyPlan = { changes: Changes; columns: Record<string, unknown>; voids: boolean };

/** A reference the provider cut to its limit still equals ours. */
function sameReference(local: string | null, external: string | null, maxLength?: number): boolean {
  if (local === external) return true;
  return (
    maxLength !== undefined &&
    local !== null &&
    external !== null &&
    external.length === maxLength &&
    local.slice(0, maxLength) === external
  );
}

function diff(entry: EntryRow, external: ExternalEntry, referenceMaxLength?: number): ApplyPlan {
  const changes: Changes = {};
  const columns: Record<string, unknown> = {};
  const take = (field: string, column: keyof EntryRow, to: unknown) => {
    if (to === undefined || entry[column] === to) return;
    changes[field] = { from: entry[column], to };
    columns[column] = to;
  };
  take('amountCents', 'amount_cents', external.amountCents);
  take('entryDate', 'entry_date', external.entryDate);
  take('description', 'description', external.description);
  if (external.reference !== undefined && !sameReference(entry.reference, external.reference, referenceMaxLength)) {
    take('reference', 'reference', external.reference);
  }
  return { changes, columns, voids: external.voided && entry.entry_status !== 'VOIDED' };
}

/** What applying `external` would change, or a 409 naming why the local entry cannot take it. */
export async function planExternalApply(
  tx: Transaction,
  entry: EntryRow,
  external: ExternalEntry,
  referenceMaxLength?: number,
): Promise<ApplyPlan> {
  const plan = diff(entry, external, referenceMaxLength);
  const edits = Object.keys(plan.changes).length > 0;
  if (!edits && !plan.voids) {
    if (!external.voided && entry.entry_status === 'VOIDED') throw conflict('The entry is VOIDED locally; the external record is not');
    return plan;
  }
  if (entry.entry_status === 'VOIDED' || entry.entry_status === 'CANCELLED') {
    throw conflict(`The entry is ${entry.entry_status}; the external change cannot be applied to it`);
  }
  await lockPeriodsShared(tx, entry.workspace_id);
  for (const date of new Set([entry.entry_date, (plan.columns.entry_date as string | undefined) ?? entry.entry_date])) {
    const closed = await closedPeriodAt(tx, entry.workspace_id, date);
    if (closed) throw conflict(`${date} is in the closed accounting period "${closed.name}"; the external change cannot be applied`);
  }
  const amount = plan.columns.amount_cents as number | undefined;
  if (amount !== undefined) {
    const used = await derivedTotal(tx, entry.id, ['REFUND', 'REIMBURSEMENT']);
    if (amount < used) throw conflict(`The external amount ${amount} is below the ${used} already refunded or reimbursed`);
    const [items] = await db().query<{ n: number; total: number }>(
      'SELECT count(*)::int AS n, COALESCE(SUM(amount_cents), 0)::bigint AS total FROM entry_items WHERE entry_id = :id',
      { replacements: { id: entry.id }, type: QueryTypes.SELECT, transaction: tx },
    );
    if (items.n > 0 && items.total !== amount)
      throw conflict(`The entry's line items sum to ${items.total}, not to the external amount ${amount}`);
  }
  return plan;
}

/**
 * Applies a plan on the locked entry: one ENTRY_UPDATED event with the changes (and the entry
 * hooks), then the void through the entries lifecycle. Returns whether anything changed.
 */
export async function applyPlan(
  tx: Transaction,
  entry: EntryRow,
  plan: ApplyPlan,
  who: EventActor,
  data: Record<string, unknown>,
): Promise<boolean> {
  let current = entry;
  if (Object.keys(plan.changes).length > 0) {
    current = await updateEntryRow(tx, entry.id, plan.columns, clock.now());
    await recordEvent(tx, current, 'ENTRY_UPDATED', { changes: plan.changes, ...data }, who);
    await entryHooks.changed(tx, entry, current, 'EDITED', who);
  }
  if (plan.voids) await applyStatus(tx, current, 'VOIDED', 'Voided in the external accounting system', who, 'VOIDED');
  return Object.keys(plan.changes).length > 0 || plan.voids;
}
