import { transaction, type Transaction } from '../../db/database.js';
import { AppError, conflict } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import type { ApplyRuleInput, ApplyRuleResult } from '../../../shared/contracts/rules.js';
import type { CompiledRule, RuleDefinition } from './engine.js';
import { lockScannedEntries, scanEntries, type ScannedEntry } from './entry-scan.js';
import { changesAnything, effectOn, isWritable } from './rule-effects.js';
import { definitionOf, loadRule } from './rule-rows.js';
import { validateRule } from './rule-validation.js';
import { lockPeriodsForRuleWrites, writeRuleEffect } from './rule-writes.js';

/**
 * POST /rules/{id}/apply (CONTRACT §16): a saved rule over the workspace's existing entries.
 * Entries are read a chunk at a time; those the rule would change are locked, read again and
 * changed in one transaction per chunk, each change with its events. VOIDED, CANCELLED and
 * closed-period entries are skipped, as are those the rule leaves as they are.
 */
export async function applyRule(actor: Actor, input: ApplyRuleInput): Promise<ApplyRuleResult> {
  const row = await loadRule(actor, input.id);
  const rule = await compiledForApply(row.workspace_id, definitionOf(row));
  let matched = 0;
  let changed = 0;
  for await (const chunk of scanEntries({
    workspaceId: row.workspace_id,
    fromDate: input.fromDate,
    toDate: input.toDate,
    liveOnly: false,
  })) {
    const candidates: number[] = [];
    for (const entry of chunk) {
      const effect = effectOn(rule, entry);
      if (!effect) continue;
      matched++;
      if (isWritable(entry) && changesAnything(effect.changes)) candidates.push(entry.id);
    }
    if (candidates.length > 0) changed += await applyToChunk(actor, rule, row.workspace_id, candidates);
  }
  return { matched, changed, skipped: matched - changed };
}

/** A saved rule naming an id that is no longer usable (a category deactivated since) cannot be applied: 409. */
async function compiledForApply(workspaceId: number, definition: RuleDefinition): Promise<CompiledRule> {
  try {
    return await validateRule(undefined, workspaceId, definition);
  } catch (err) {
    if (err instanceof AppError && err.code === 'BAD_REQUEST') throw conflict(`The rule cannot be applied: ${err.message}`);
    throw err;
  }
}

async function applyToChunk(actor: Actor, rule: CompiledRule, workspaceId: number, ids: number[]): Promise<number> {
  return transaction(async (tx) => {
    await lockPeriodsForRuleWrites(tx, workspaceId);
    let changed = 0;
    for (const entry of await lockScannedEntries(tx, workspaceId, ids)) {
      if (await applyToEntry(tx, actor, rule, entry)) changed++;
    }
    return changed;
  });
}

async function applyToEntry(tx: Transaction, actor: Actor, rule: CompiledRule, entry: ScannedEntry): Promise<boolean> {
  const effect = effectOn(rule, entry);
  if (!effect || !isWritable(entry) || !changesAnything(effect.changes)) return false;
  await writeRuleEffect(tx, entry, effect, { ruleId: rule.id, ruleName: rule.name }, actor);
  return true;
}
