import { scope, type Actor } from '../../lib/scope.js';
import type { PreviewRuleInput, PreviewRuleResult } from '../../../shared/contracts/rules.js';
import { scanEntries } from './entry-scan.js';
import { effectOn } from './rule-effects.js';
import { validateRule } from './rule-validation.js';

/**
 * POST /rules/preview (CONTRACT §16): what a rule, saved or not, would do to the workspace's
 * existing entries that are not VOIDED or CANCELLED. Reads only; nothing changes.
 */
export async function previewRule(actor: Actor, input: PreviewRuleInput): Promise<PreviewRuleResult> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  const rule = await validateRule(undefined, input.workspaceId, input);
  let matched = 0;
  const items: PreviewRuleResult['items'] = [];
  for await (const chunk of scanEntries({
    workspaceId: input.workspaceId,
    fromDate: input.fromDate,
    toDate: input.toDate,
    liveOnly: true,
  })) {
    for (const entry of chunk) {
      const effect = effectOn(rule, entry);
      if (!effect) continue;
      matched++;
      if (items.length < input.limit) items.push({ entryId: entry.id, changes: effect.changes });
    }
  }
  return { matched, items };
}
