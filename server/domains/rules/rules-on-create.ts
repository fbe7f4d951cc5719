import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { placeDocumentRequest } from '../documents/index.js';
import type { CreateTrigger, EntryEffects, EntryRow, NewEntryFields, PreparedNewEntries } from '../entries/index.js';
import { evaluateRules, partyIdsToName, type Evaluation, type RuleDraft } from './engine.js';
import { ruleCache } from './rule-cache.js';

/**
 * The rules of CONTRACT §16 on new entries, before they are inserted (inside the creating
 * transaction): the workspace's rule set comes from the cache (one load per call, whatever the
 * number of drafts), the names of the parties the drafts name in one query, and every draft is
 * evaluated in memory. Returns one evaluation per draft, in order. `knownNames` names parties the
 * database does not hold yet (a caller's placeholders for parties it will create by name).
 */
export async function evaluateNewEntries(
  tx: Transaction,
  workspaceId: number,
  trigger: CreateTrigger,
  drafts: RuleDraft[],
  bankCounterparties?: (string | null | undefined)[],
  knownNames?: ReadonlyMap<number, string>,
): Promise<Evaluation[]> {
  const ruleSet = await ruleCache.load(tx, workspaceId);
  const running = ruleSet.rules.filter((r) => r.triggers.has(trigger));
  if (running.length === 0) return drafts.map((draft) => ({ draft, applied: [], documentRequests: [] }));
  const names = new Map([...ruleSet.partyNames, ...(knownNames ?? [])]);
  const needNames = running.some((r) => r.readsCounterparty);
  const unknown = needNames ? partyIdsToName(ruleSet, drafts).filter((id) => !names.has(id)) : [];
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
 * the rules leave them, RULE_APPLIED {ruleId, ruleName, changes} per rule applied (the core
 * chains them after ENTRY_CREATED in its insert) and — once inserted — the documents the rules
 * request.
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
    events: evaluations.map((e) => e.applied.map((data) => ({ kind: 'RULE_APPLIED' as const, data }))),
    afterInsert: (tx2, rows) => requestDocuments(tx2, evaluations, rows),
    changesAfterInsert: evaluations.some((e) => e.documentRequests.length > 0),
  };
}

/** The documents the rules requested on the new entries: their placeholders, and their effects for the core to apply. */
async function requestDocuments(tx: Transaction, evaluations: Evaluation[], rows: (EntryRow | undefined)[]): Promise<EntryEffects> {
  const effects: EntryEffects[] = [];
  for (const [i, e] of evaluations.entries()) {
    const row = rows[i];
    if (!row) continue;
    for (const request of e.documentRequests) effects.push((await placeDocumentRequest(tx, row, request)).effects);
  }
  return effects.flat();
}
