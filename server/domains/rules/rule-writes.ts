import type { Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { byUser, type EventActor } from '../entries/events.js';
import { recordEvent } from '../entries/events.js';
import { lockEntry, updateEntryRow } from '../entries/entry-rows.js';
import { setEntryTags } from '../entries/entry-writes.js';
import { entryHooks } from '../entries/entry-hooks.js';
import { lockPeriodsShared } from '../accounting/periods/period-lock.js';
import { requestDocumentInTransaction } from '../documents/documents.service.js';
import type { Actor } from '../../lib/scope.js';
import type { RuleChanges } from '../../../shared/contracts/rules.js';
import type { ScannedEntry } from './entry-scan.js';
import type { Effect } from './rule-effects.js';

/** Entry fields a rule sets → their columns. */
const COLUMNS = {
  categoryId: 'category_id',
  projectId: 'project_id',
  fromPartyId: 'from_party_id',
  toPartyId: 'to_party_id',
  excludeFromSync: 'exclude_from_sync',
  description: 'description',
} as const;

/** Apply takes the period lock shared, as every entry write does, before it judges closed periods. */
export const lockPeriodsForRuleWrites = (tx: Transaction, workspaceId: number) => lockPeriodsShared(tx, workspaceId);

/**
 * One existing, locked entry changed by a rule, each change with its event (ENTRY_UPDATED,
 * TAGS_CHANGED, DOCUMENT_REQUESTED) and the edit reactions (a SYNCED sync becomes STALE), then
 * RULE_APPLIED {ruleId, ruleName, changes}.
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
  const fieldChanges: Record<string, { from: unknown; to: unknown }> = {};
  const columns: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(COLUMNS) as [keyof typeof COLUMNS, string][]) {
    const change = changes[field];
    if (!change) continue;
    fieldChanges[field] = change;
    columns[column] = change.to;
  }
  let row = await lockEntry(null, entry.id, tx);
  if (Object.keys(columns).length > 0) {
    const before = row;
    row = await updateEntryRow(tx, entry.id, columns, clock.now());
    await recordEvent(tx, row, 'ENTRY_UPDATED', { changes: fieldChanges }, who);
    await entryHooks.changed(tx, before, row, 'EDITED', who);
  }
  if (changes.tagIds) {
    await setEntryTags(tx, row, changes.tagIds.to);
    await recordEvent(tx, row, 'TAGS_CHANGED', { from: changes.tagIds.from, to: changes.tagIds.to }, who);
  }
  for (const request of effect.documentRequests) await requestDocumentInTransaction(tx, row, request, who);
  await recordRuleApplied(tx, row, rule, changes, who);
}

export function recordRuleApplied(
  tx: Transaction,
  entry: { id: number; workspace_id: number },
  rule: { ruleId: string; ruleName: string },
  changes: RuleChanges,
  who: EventActor,
): Promise<void> {
  return recordEvent(tx, entry, 'RULE_APPLIED', { ruleId: rule.ruleId, ruleName: rule.ruleName, changes }, who);
}
