import type { Transaction } from '../../db/database.js';
import { badRequest } from '../../lib/errors.js';
import type { RuleAction, RuleCondition, RuleMatch } from '../../../shared/contracts/rules.js';
import { compileRule, RulePatternError, type CompiledRule } from './engine.js';
import { assertRefsOfWorkspace, refsOf } from './rule-references.js';

/**
 * What the schema cannot see (CONTRACT §16): every pattern must be one RE2 accepts (backreferences
 * and lookaround are refused by RE2 itself) and every id must be the workspace's; 400 otherwise.
 * Returns the compiled rule.
 */
export async function validateRule(
  tx: Transaction | undefined,
  workspaceId: number,
  rule: { id?: string; name?: string; match: RuleMatch; conditions: RuleCondition[]; actions: RuleAction[]; stopProcessing?: boolean },
): Promise<CompiledRule> {
  let compiled: CompiledRule;
  try {
    compiled = compileRule({
      id: rule.id ?? 'unsaved',
      name: rule.name ?? 'unsaved',
      match: rule.match,
      conditions: rule.conditions,
      actions: rule.actions,
      stopProcessing: rule.stopProcessing ?? false,
      triggers: [],
    });
  } catch (err) {
    if (err instanceof RulePatternError) throw badRequest(err.message);
    throw err;
  }
  await assertRefsOfWorkspace(tx, workspaceId, refsOf(rule.conditions, rule.actions));
  return compiled;
}
