import { quotedValue } from '../../lib/errors.js';
import type { Transaction } from '../../db/database.js';
import type { IngestItem, PartyRef } from '../../../shared/contracts/integrations.js';
import { evaluateNewEntries, type RuleDraft } from '../rules/index.js';
import type { IngestCaller } from './ingest-auth.js';

/**
 * CONTRACT §11: an item of an integration limited to some projects is an ERROR when a rule
 * (trigger INGEST) would move it to a project outside them; no route lets a scoped key write
 * outside its scope. The rules are evaluated here exactly as the ledger core will run them on
 * create (same rule set, same transaction), before anything of the item is written; parties named
 * by name that do not exist yet take placeholder ids carrying their names (counterparty conditions).
 * Returns, per item in order, the error or undefined.
 */
export async function outOfScopeByRules(tx: Transaction, caller: IngestCaller, items: IngestItem[]): Promise<(string | undefined)[]> {
  if (caller.projectIds.length === 0 || items.length === 0) return items.map(() => undefined);
  const placeholders = new Map<number, string>();
  const partyOf = (ref: PartyRef | undefined): number | null => {
    if (!ref) return null;
    if ('id' in ref) return ref.id;
    const id = -(placeholders.size + 1);
    placeholders.set(id, ref.name);
    return id;
  };
  const drafts: RuleDraft[] = items.map((item) => ({
    entryType: item.entryType,
    amountCents: item.amountCents,
    baseCurrency: item.baseCurrency,
    projectId: item.projectId,
    fromPartyId: partyOf(item.fromParty),
    toPartyId: partyOf(item.toParty),
    description: item.description ?? null,
    reference: item.reference ?? null,
    categoryId: null,
    tagIds: [],
    excludeFromSync: false,
  }));
  const evaluations = await evaluateNewEntries(tx, caller.workspaceId, 'INGEST', drafts, undefined, placeholders);
  return evaluations.map(({ draft, applied }) => {
    if (caller.projectIds.includes(draft.projectId)) return undefined;
    const mover = [...applied].reverse().find((a) => a.changes.projectId !== undefined);
    return `Rule ${quotedValue(mover?.ruleName ?? '?')} would move the entry to project ${draft.projectId}, outside this integration's project scope`;
  });
}
