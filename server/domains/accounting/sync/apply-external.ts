import type { Transaction } from '../../../db/database.js';
import { conflict } from '../../../lib/errors.js';
import { diffEdit, isFrozen, ledger, type EntryEdit, type EntryRow, type EventActor } from '../../entries/index.js';
import type { ExternalEntry } from '../providers/provider.js';

/**
 * Applying an external record to its local entry (pull of a SYNCED record, resolve
 * KEEP_EXTERNAL): amount, date, description, reference, and a void — through the ledger core,
 * whose rules (frozen entry, closed periods, line items, the caps of refunds and
 * reimbursements) refuse with a 409. Callers run this in a savepoint or their own transaction,
 * so a refusal changes nothing.
 */

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

function externalEdit(entry: EntryRow, external: ExternalEntry, referenceMaxLength?: number): EntryEdit {
  const edit: EntryEdit = { amountCents: external.amountCents, entryDate: external.entryDate, description: external.description };
  if (external.reference !== undefined && !sameReference(entry.reference, external.reference, referenceMaxLength)) {
    edit.reference = external.reference;
  }
  return edit;
}

/** Applies `external` to the locked entry; true when anything changed, 409 when the entry cannot take it. */
export async function applyExternal(
  tx: Transaction,
  entry: EntryRow,
  external: ExternalEntry,
  who: EventActor,
  data: Record<string, unknown>,
  referenceMaxLength?: number,
): Promise<boolean> {
  const edit = externalEdit(entry, external, referenceMaxLength);
  const edits = Object.keys(diffEdit(entry, edit).changes).length > 0;
  const voids = external.voided && entry.entry_status !== 'VOIDED';
  if (!edits && !voids) {
    if (!external.voided && entry.entry_status === 'VOIDED') throw conflict('The entry is VOIDED locally; the external record is not');
    return false;
  }
  if (isFrozen(entry.entry_status)) throw conflict(`The entry is ${entry.entry_status}; the external change cannot be applied to it`);
  const current = edits ? ((await ledger.edit(tx, entry, edit, who, data)) ?? entry) : entry;
  if (voids) await ledger.setStatus(tx, current, 'VOIDED', 'Voided in the external accounting system', who, 'SYNC');
  return true;
}
