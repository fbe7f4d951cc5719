/**
 * The rules domain (CONTRACT §16): the only module other domains import.
 *
 * - `loadRuleSet(tx, workspaceId)` — the workspace's active rules, compiled, from a per-process
 *   cache that rule writes and `rules_changed` notifications invalidate. Load it once per request
 *   per workspace, never per entry.
 * - `evaluateRules(ruleSet, draft, ctx, trigger)` — pure, in memory: the draft after the rules,
 *   the rules applied (for RULE_APPLIED events) and the documents they request.
 * - `evaluateNewEntries(tx, workspaceId, trigger, drafts, …)` — the same for a batch of new drafts,
 *   with the rule set and party names loaded (ingest checks where its rules would move an item).
 */
export { rulesRouter } from './rules.router.js';
export { createRule } from './rules.service.js';
export { applyRule } from './apply.service.js';
export { ruleCache } from './rule-cache.js';
export type { LoadedRuleSet } from './rule-cache.js';
export { evaluateRules, counterpartyOf } from './engine.js';
export type { RuleDraft, RuleContext, AppliedRule, DocumentRequest, Evaluation, RuleSet } from './engine.js';

import type { Transaction } from '../../db/database.js';
import { ruleCache, type LoadedRuleSet } from './rule-cache.js';
import { evaluateNewEntries, prepareNewEntries } from './rules-on-create.js';

/** The drafts as the rules of a trigger would leave them, nothing written (a caller's checks before it creates). */
export { evaluateNewEntries };

/** What rules do when the ledger core creates entries (wired in server/domains/reactions.ts). */
export const ruleReactions = { prepareNewEntries };

export const loadRuleSet = (tx: Transaction | undefined, workspaceId: number): Promise<LoadedRuleSet> => ruleCache.load(tx, workspaceId);
