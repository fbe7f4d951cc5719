import { changeListener } from '../../db/change-listener.js';
import type { Transaction } from '../../db/database.js';
import type { RuleAction } from '../../../shared/contracts/rules.js';
import { compileRule, type RuleSet } from './engine.js';
import { definitionOf, listRuleRows } from './rule-rows.js';
import { refsOf, usableRefs } from './rule-references.js';

/** A compiled rule set and the names of the parties its SET_PARTY actions set. */
export type LoadedRuleSet = RuleSet & { partyNames: ReadonlyMap<number, string> };

/**
 * The active rules of each workspace, compiled, kept in memory (as the session cache does:
 * server/domains/auth/session-cache.ts). Correctness comes from invalidation: migration 0016's
 * triggers announce on `rules_changed` every workspace whose rules, or the tags, categories,
 * parties and projects they name, changed; this process's own rule writes forget at commit.
 * While the LISTEN connection is down, every load reads the database.
 */
class RuleCache {
  private sets = new Map<number, LoadedRuleSet>();
  private evictions = 0;
  private subscribed = false;

  private subscribe(): void {
    if (this.subscribed) return;
    this.subscribed = true;
    changeListener.subscribe(
      'rules_changed',
      (payload) => this.forget(Number(payload)),
      () => this.clear(),
    );
  }

  async load(tx: Transaction | undefined, workspaceId: number): Promise<LoadedRuleSet> {
    this.subscribe();
    if (!changeListener.isListening()) return readRuleSet(tx, workspaceId);
    const hit = this.sets.get(workspaceId);
    if (hit) return hit;
    const generation = this.evictions;
    const set = await readRuleSet(tx, workspaceId);
    // a change announced while reading may not be in what was read: do not keep it
    if (generation === this.evictions && changeListener.isListening()) this.sets.set(workspaceId, set);
    return set;
  }

  /** Whether a workspace's rules are served from memory now (tests). */
  holds(workspaceId: number): boolean {
    return this.sets.has(workspaceId);
  }

  forget(workspaceId: number): void {
    this.evictions++;
    this.sets.delete(workspaceId);
  }

  clear(): void {
    this.evictions++;
    this.sets.clear();
  }
}

export const ruleCache = new RuleCache();

/** The rules of a workspace as they will run: active ones, in priority order, with actions on ids no longer usable dropped. */
async function readRuleSet(tx: Transaction | undefined, workspaceId: number): Promise<LoadedRuleSet> {
  const rows = await listRuleRows(workspaceId, { activeOnly: true, tx });
  const usable = await usableRefs(
    tx,
    workspaceId,
    refsOf(
      [],
      rows.flatMap((r) => r.actions),
    ),
  );
  const stillUsable = (a: RuleAction): RuleAction | undefined => {
    switch (a.type) {
      case 'SET_CATEGORY':
        return usable.categoryIds.has(a.categoryId) ? a : undefined;
      case 'ADD_TAGS': {
        const tagIds = a.tagIds.filter((id) => usable.tagIds.has(id));
        return tagIds.length ? { ...a, tagIds } : undefined;
      }
      case 'SET_PROJECT':
        return usable.projectIds.has(a.projectId) ? a : undefined;
      case 'SET_PARTY':
        return usable.partyNames.has(a.partyId) ? a : undefined;
      default:
        return a;
    }
  };
  const rules = rows.map((row) =>
    compileRule({ ...definitionOf(row), actions: row.actions.map(stillUsable).filter((a): a is RuleAction => a !== undefined) }),
  );
  return { workspaceId, rules, partyNames: usable.partyNames };
}

/** Forget a workspace's rule set once the transaction that wrote its rules commits (other processes hear the trigger). */
export function forgetAtCommit(tx: Transaction, workspaceId: number): void {
  tx.afterCommit(() => ruleCache.forget(workspaceId));
}
