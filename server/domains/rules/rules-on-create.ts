import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { requestDocumentInTransaction } from '../documents/index.js';
import {
  ledger,
  type CreateTrigger,
  type EntryRow,
  type EventActor,
  type NewEntryFields,
  type PreparedNewEntries,
} from '../entries/index.js';
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
  trigger: CreateTrigger,
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

/**
 * The ledger core's `entriesBeforeCreate` reaction (server/domains/reactions.ts): the drafts as
 * the rules leave them, and — once inserted — RULE_APPLIED {ruleId, ruleName, changes} per rule
 * applied (set-based: one statement per round of rules) and the documents the rules request.
 */
export async function prepareNewEntries(
  tx: Transaction,
  workspaceId: number,
  trigger: CreateTrigger,
  drafts: NewEntryFields[],
  context: { bankCounterparties?: (string | null | undefined)[] },
): Promise<PreparedNewEntries> {
  const evaluations = await evaluateNewEntries(tx, workspaceId, trigger, drafts, context.bankCounterparties);
  return {
    drafts: evaluations.map((e) => e.draft),
    afterInsert: (tx2, rows, actor) => recordRuleEffects(tx2, evaluations, rows, actor),
  };
}

async function recordRuleEffects(
  tx: Transaction,
  evaluations: Evaluation[],
  rows: (EntryRow | undefined)[],
  actor: EventActor,
): Promise<boolean> {
  const rounds = Math.max(0, ...evaluations.map((e) => e.applied.length));
  for (let round = 0; round < rounds; round++) {
    const events = evaluations.flatMap((e, i) => {
      const row = rows[i];
      const applied = e.applied[round];
      return row && applied ? [{ entry: row, kind: 'RULE_APPLIED' as const, data: applied }] : [];
    });
    await ledger.recordEvents(tx, events, actor);
  }
  let touched = false;
  for (const [i, e] of evaluations.entries()) {
    const row = rows[i];
    if (!row) continue;
    for (const request of e.documentRequests) {
      await requestDocumentInTransaction(tx, row, request, actor);
      touched = true;
    }
  }
  return touched;
}
