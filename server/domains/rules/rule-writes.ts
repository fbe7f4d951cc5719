import type { Transaction } from '../../db/database.js';
import type { Actor } from '../../lib/scope.js';
import { requestDocumentInTransaction } from '../documents/index.js';
import { byUser, ledger, lockEntry, type EntryEdit, type EventActor } from '../entries/index.js';
import { lockPeriodsShared } from '../periods/index.js';
import type { ScannedEntry } from './entry-scan.js';
import type { Effect } from './rule-effects.js';

/** Apply takes the period lock shared, as every entry write does, before it judges closed periods. */
export const lockPeriodsForRuleWrites = (tx: Transaction, workspaceId: number) => lockPeriodsShared(tx, workspaceId);

/**
 * One existing, locked entry changed by a rule through the ledger core, each change with its
 * event and reactions (ENTRY_UPDATED — a SYNCED sync becomes STALE —, TAGS_CHANGED,
 * DOCUMENT_REQUESTED), then RULE_APPLIED {ruleId, ruleName, changes}.
 */
export async function writeRuleEffect(
  tx: Transaction,
  entry: ScannedEntry,
  effect: Effect,
  rule: { ruleId: string; ruleName: string },
  actor: Actor,
): Promise<void> {
  const who: EventActor = byUser(actor);
  const { changes } = effect;
  const edit: EntryEdit = {};
  if (changes.categoryId) edit.categoryId = changes.categoryId.to;
  if (changes.projectId) edit.projectId = changes.projectId.to;
  if (changes.fromPartyId) edit.fromPartyId = changes.fromPartyId.to;
  if (changes.toPartyId) edit.toPartyId = changes.toPartyId.to;
  if (changes.excludeFromSync) edit.excludeFromSync = changes.excludeFromSync.to;
  if (changes.description) edit.description = changes.description.to;
  let row = await lockEntry(null, entry.id, tx);
  if (Object.keys(edit).length > 0) row = (await ledger.edit(tx, row, edit, who)) ?? row;
  if (changes.tagIds) row = await ledger.setTags(tx, row, changes.tagIds.to, who);
  for (const request of effect.documentRequests) await requestDocumentInTransaction(tx, row, request, who);
  await ledger.recordEvent(tx, row, 'RULE_APPLIED', { ruleId: rule.ruleId, ruleName: rule.ruleName, changes }, who);
}
