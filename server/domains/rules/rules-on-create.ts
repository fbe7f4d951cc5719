import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import type { RuleTrigger } from '../../../shared/contracts/rules.js';
import { evaluateRules, partyIdsToName, type Evaluation, type RuleDraft } from './engine.js';
import { ruleCache } from './rule-cache.js';

/**
 * The rules of CONTRACT §16 on new entries, before they are inserted (inside the creating
 * transaction): the workspace's rule set comes from the cache (one load per call, whatever the
 * number of drafts), the names of the parties the drafts name in one query, and every draft is
 * evaluated in memory. Returns one evaluation per draft, in order.
 */
export async function evaluateNewEntries(
  tx: Transaction,
  workspaceId: number,
  trigger: RuleTrigger,
  drafts: RuleDraft[],
  bankCounterparties?: (string | null | undefined)[],
): Promise<Evaluation[]> {
  const ruleSet = await ruleCache.load(tx, workspaceId);
  if (!ruleSet.rules.some((r) => r.triggers.has(trigger))) return drafts.map((draft) => ({ draft, applied: [], documentRequests: [] }));
  const names = new Map(ruleSet.partyNames);
  const unknown = partyIdsToName(ruleSet, drafts).filter((id) => !names.has(id));
  if (unknown.length > 0) {
    const rows = await db().query<{ id: number; name: string }>(
      'SELECT id, name FROM parties WHERE workspace_id = $1 AND id = ANY($2::int[])',
      {
        bind: [workspaceId, unknown],
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    for (const r of rows) names.set(r.id, r.name);
  }
  return drafts.map((draft, i) => evaluateRules(ruleSet, draft, { partyNames: names, bankCounterparty: bankCounterparties?.[i] }, trigger));
}
