import type { RuleChanges } from '../../../shared/contracts/rules.js';
import { applyActions, ruleMatches, type CompiledRule, type DocumentRequest, type RuleDraft } from './engine.js';
import { ledger } from '../entries/index.js';
import type { ScannedEntry } from './entry-scan.js';

/**
 * Entries a rule may change when applied to existing entries (CONTRACT §16): those the ledger's one writability check
 * lets be edited (not VOIDED, CANCELLED or in a closed period), on the scan's facts.
 */
export const isWritable = (e: ScannedEntry): boolean =>
  ledger.writeRefusal({ entry_status: e.status, entry_date: e.entryDate }, { kind: 'edit' }, () =>
    e.inClosedPeriod ? 'closed' : undefined,
  ) === null;

export type Effect = { draft: RuleDraft; changes: RuleChanges; documentRequests: DocumentRequest[] };

/**
 * What a matching rule would do to an existing entry: its field changes, and the documents it
 * requests that the entry does not already have (by name and type), so that applying a rule twice
 * changes nothing the second time. Undefined when the rule does not match.
 */
export function effectOn(rule: CompiledRule, e: ScannedEntry): Effect | undefined {
  if (!ruleMatches(rule, e.draft, e.ctx)) return undefined;
  const result = applyActions(rule, e.draft);
  const had = new Set(e.documents.map((d) => `${d.type}\u0000${d.name}`));
  const documentRequests = result.documentRequests.filter((r) => !had.has(`${r.documentType}\u0000${r.documentName}`));
  const changes: RuleChanges = { ...result.changes };
  if (documentRequests.length) changes.documentsRequested = documentRequests;
  else delete changes.documentsRequested;
  return { draft: result.draft, changes, documentRequests };
}

export const changesAnything = (changes: RuleChanges): boolean => Object.keys(changes).length > 0;
