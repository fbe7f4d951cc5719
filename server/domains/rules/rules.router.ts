import { z } from 'zod/v4';
import { Success } from '../../../shared/contracts/common.js';
import {
  ApplyRuleInput,
  ApplyRuleResult,
  CreateRuleInput,
  ListRulesQuery,
  PreviewRuleInput,
  PreviewRuleResult,
  RuleIdInput,
  RuleObject,
  RULES_PER_WORKSPACE_MAX,
  UpdateRuleInput,
} from '../../../shared/contracts/rules.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import { applyRule } from './apply.service.js';
import { previewRule } from './preview.service.js';
import * as rules from './rules.service.js';

const TAG = 'Rules';
const can = permitted('rule.manage');

export const rulesRouter = router({
  list: authedProcedure
    .meta(op('GET', '/rules', 'listRules', TAG, 'Rules of a workspace, by priority ascending then createdAt', [403]))
    .input(ListRulesQuery)
    .output(z.array(RuleObject).max(RULES_PER_WORKSPACE_MAX))
    .query(({ ctx, input }) => rules.listRules(ctx.actor, input)),
  create: can
    .meta(
      op('POST', '/rules', 'createRule', TAG, 'Create a rule', [403, 409], {
        description: `At most ${RULES_PER_WORKSPACE_MAX} rules per workspace (409 beyond). Ids in conditions and actions must be the workspace's (400); a pattern RE2 refuses is a 400.`,
      }),
    )
    .input(CreateRuleInput)
    .output(RuleObject)
    .mutation(({ ctx, input }) => rules.createRule(ctx.actor, input)),
  preview: can
    .meta(
      op('POST', '/rules/preview', 'previewRule', TAG, 'What a rule would change on existing entries (nothing changes)', [403], {
        description:
          'Over entries that are not VOIDED or CANCELLED: `matched` counts every matching entry, `items` holds at most `limit` of them, newest entryDate first.',
      }),
    )
    .input(PreviewRuleInput)
    .output(PreviewRuleResult)
    .mutation(({ ctx, input }) => previewRule(ctx.actor, input)),
  get: authedProcedure
    .meta(op('GET', '/rules/{id}', 'getRule', TAG, 'A rule', [404]))
    .input(RuleIdInput)
    .output(RuleObject)
    .query(({ ctx, input }) => rules.getRule(ctx.actor, input)),
  update: can
    .meta(op('PATCH', '/rules/{id}', 'updateRule', TAG, 'Update a rule', [403, 404]))
    .input(UpdateRuleInput)
    .output(RuleObject)
    .mutation(({ ctx, input }) => rules.updateRule(ctx.actor, input)),
  delete: can
    .meta(op('DELETE', '/rules/{id}', 'deleteRule', TAG, 'Delete a rule', [403, 404]))
    .input(RuleIdInput)
    .output(Success)
    .mutation(({ ctx, input }) => rules.deleteRule(ctx.actor, input)),
  applyToEntries: can
    .meta(
      op('POST', '/rules/{id}/apply', 'applyRule', TAG, 'Apply a saved rule to existing entries', [403, 404, 409], {
        description:
          'VOIDED, CANCELLED and closed-period entries are skipped, as are entries the rule leaves unchanged; every change has its events. 409 when an id the rule names is no longer usable (an inactive category).',
      }),
    )
    .input(ApplyRuleInput)
    .output(ApplyRuleResult)
    .mutation(({ ctx, input }) => applyRule(ctx.actor, input)),
});
