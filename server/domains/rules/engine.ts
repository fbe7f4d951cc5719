import { RE2JS } from 're2js';
import type { EntryType } from '../../../shared/contracts/entries.js';
import type { DocumentType } from '../../../shared/contracts/documents.js';
import type { RuleAction, RuleChanges, RuleCondition, RuleMatch, RuleTrigger } from '../../../shared/contracts/rules.js';

/**
 * The rule engine of CONTRACT §16: pure and in memory. A rule set is compiled once (patterns
 * included) and then evaluated against any number of drafts without touching the database.
 */

/** The fields of an entry that rules read and write. */
export type RuleDraft = {
  entryType: EntryType;
  amountCents: number;
  baseCurrency: string;
  projectId: number;
  fromPartyId: number | null;
  toPartyId: number | null;
  description: string | null;
  reference: string | null;
  categoryId: string | null;
  tagIds: number[];
  excludeFromSync: boolean;
};

export type RuleContext = {
  /** names of the parties the drafts (and SET_PARTY actions) name */
  partyNames: ReadonlyMap<number, string>;
  /** trigger BANK: the bank line's counterparty is the `counterparty` */
  bankCounterparty?: string | null;
};

export type DocumentRequest = { documentName: string; documentType: DocumentType };
export type AppliedRule = { ruleId: string; ruleName: string; changes: RuleChanges };

/**
 * A draft as conditions read it. Text fields are lower-cased at most once per draft, however many
 * conditions read them: 100 rules over a 1,000-entry batch would otherwise convert the same strings
 * a hundred times each.
 */
type Subject = { draft: RuleDraft; text(field: TextField): string; lower(field: TextField): string };
type TextField = 'description' | 'reference' | 'counterparty';
type Predicate = (subject: Subject) => boolean;

function subjectOf(draft: RuleDraft, ctx: RuleContext): Subject {
  const raw: Partial<Record<TextField, string>> = {};
  const lower: Partial<Record<TextField, string>> = {};
  const text = (field: TextField) => (raw[field] ??= field === 'counterparty' ? counterpartyOf(draft, ctx) : (draft[field] ?? ''));
  return {
    draft,
    text,
    lower: (field) => (lower[field] ??= text(field).toLowerCase()),
  };
}

export type RuleDefinition = {
  id: string;
  name: string;
  match: RuleMatch;
  conditions: RuleCondition[];
  actions: RuleAction[];
  stopProcessing: boolean;
  triggers: RuleTrigger[];
};

export type CompiledRule = {
  id: string;
  name: string;
  match: RuleMatch;
  predicates: Predicate[];
  actions: RuleAction[];
  stopProcessing: boolean;
  triggers: ReadonlySet<RuleTrigger>;
  /** whether a condition reads the counterparty (party names are then needed) */
  readsCounterparty: boolean;
};

/** The active rules of one workspace, in priority order, compiled. */
export type RuleSet = { workspaceId: number; rules: CompiledRule[] };

/** A pattern RE2 refuses (backreferences, lookaround, bad syntax). */
/**
 * RE2's reason as part of a sentence: `error parsing regexp: missing closing ): \`(a\`` becomes
 * `missing closing ")"` (the pattern is quoted once already, a bare bracket is quoted).
 */
function readableReason(reason: string): string {
  return reason
    .replace(/^error parsing regexp: /, '')
    .replace(/: `[^`]*`$/, '')
    .replace(/(^|\s)([()[\]{}])(?=\s|$)/g, '$1"$2"');
}

export class RulePatternError extends Error {
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(`Pattern ${JSON.stringify(pattern)} is not an RE2 regular expression: ${readableReason(reason)}`);
  }
}

/**
 * RE2 (the pure-JavaScript port re2js, so installing needs no compiler) runs in time linear in the
 * input: no pattern can stall the server (CONTRACT §16).
 */
export function compilePattern(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    throw new RulePatternError(pattern, err instanceof Error ? err.message : String(err));
  }
}

/** The counterparty of a draft: INCOME's from-party, EXPENSE's to-party; for trigger BANK the bank line's counterparty. */
export function counterpartyOf(draft: RuleDraft, ctx: RuleContext): string {
  if (ctx.bankCounterparty != null) return ctx.bankCounterparty;
  const partyId = draft.entryType === 'INCOME' ? draft.fromPartyId : draft.toPartyId;
  return partyId === null ? '' : (ctx.partyNames.get(partyId) ?? '');
}

function compileCondition(c: RuleCondition): Predicate {
  switch (c.field) {
    case 'description':
    case 'reference':
    case 'counterparty': {
      const field = c.field;
      if (c.operator === 'matches') {
        const re = compilePattern(c.value);
        return (x) => re.test(x.text(field));
      }
      const wanted = c.value.toLowerCase();
      const test = {
        contains: (s: string) => s.includes(wanted),
        equals: (s: string) => s === wanted,
        startsWith: (s: string) => s.startsWith(wanted),
        endsWith: (s: string) => s.endsWith(wanted),
      }[c.operator];
      return (x) => test(x.lower(field));
    }
    case 'amountCents': {
      if (c.operator === 'between') {
        const [min, max] = c.value;
        return ({ draft: d }) => d.amountCents >= min && d.amountCents <= max;
      }
      const v = c.value;
      const compare = {
        eq: (a: number) => a === v,
        gt: (a: number) => a > v,
        gte: (a: number) => a >= v,
        lt: (a: number) => a < v,
        lte: (a: number) => a <= v,
      }[c.operator];
      return ({ draft: d }) => compare(d.amountCents);
    }
    case 'entryType': {
      const v = c.value;
      return ({ draft: d }) => d.entryType === v;
    }
    case 'baseCurrency': {
      const set = new Set<string>(c.operator === 'in' ? c.value : [c.value]);
      return ({ draft: d }) => set.has(d.baseCurrency);
    }
    case 'projectId': {
      const set = new Set<number>(c.operator === 'in' ? c.value : [c.value]);
      return ({ draft: d }) => set.has(d.projectId);
    }
    case 'partyId': {
      const set = new Set<number>(c.operator === 'in' ? c.value : [c.value]);
      return ({ draft: d }) => (d.fromPartyId !== null && set.has(d.fromPartyId)) || (d.toPartyId !== null && set.has(d.toPartyId));
    }
  }
}

/** Compiles a rule's conditions (patterns included) once. Throws RulePatternError for a pattern RE2 refuses. */
export function compileRule(rule: RuleDefinition): CompiledRule {
  return {
    id: rule.id,
    name: rule.name,
    match: rule.match,
    predicates: rule.conditions.map(compileCondition),
    actions: rule.actions,
    stopProcessing: rule.stopProcessing,
    triggers: new Set(rule.triggers),
    readsCounterparty: rule.conditions.some((c) => c.field === 'counterparty'),
  };
}

export function ruleMatches(rule: CompiledRule, draft: RuleDraft, ctx: RuleContext): boolean {
  return matchesSubject(rule, subjectOf(draft, ctx));
}

const matchesSubject = (rule: CompiledRule, x: Subject): boolean =>
  rule.match === 'ALL' ? rule.predicates.every((p) => p(x)) : rule.predicates.some((p) => p(x));

const sameTags = (a: number[], b: number[]) => a.length === b.length && a.every((t, i) => t === b[i]);

/** The draft after one rule's actions, and what they changed. */
export function applyActions(
  rule: CompiledRule,
  draft: RuleDraft,
): { draft: RuleDraft; changes: RuleChanges; documentRequests: DocumentRequest[] } {
  const next: RuleDraft = { ...draft, tagIds: [...draft.tagIds] };
  const documentRequests: DocumentRequest[] = [];
  for (const action of rule.actions) {
    switch (action.type) {
      case 'SET_CATEGORY':
        next.categoryId = action.categoryId;
        break;
      case 'ADD_TAGS':
        next.tagIds = [...new Set([...next.tagIds, ...action.tagIds])].sort((a, b) => a - b);
        break;
      case 'SET_PROJECT':
        next.projectId = action.projectId;
        break;
      case 'SET_PARTY':
        if (next.entryType === 'INCOME') next.fromPartyId = action.partyId;
        else next.toPartyId = action.partyId;
        break;
      case 'SET_EXCLUDE_FROM_SYNC':
        next.excludeFromSync = action.value;
        break;
      case 'SET_DESCRIPTION':
        next.description = action.description;
        break;
      case 'REQUEST_DOCUMENT':
        documentRequests.push({ documentName: action.documentName, documentType: action.documentType });
        break;
    }
  }
  return { draft: next, changes: diff(draft, next, documentRequests), documentRequests };
}

/** `{field: {from, to}}` for every field that differs, plus the documents requested. */
export function diff(before: RuleDraft, after: RuleDraft, documentRequests: DocumentRequest[] = []): RuleChanges {
  const changes: RuleChanges = {};
  const tagsBefore = [...before.tagIds].sort((a, b) => a - b);
  const tagsAfter = [...after.tagIds].sort((a, b) => a - b);
  if (!sameTags(tagsBefore, tagsAfter)) changes.tagIds = { from: tagsBefore, to: tagsAfter };
  if (before.categoryId !== after.categoryId) changes.categoryId = { from: before.categoryId, to: after.categoryId };
  if (before.projectId !== after.projectId) changes.projectId = { from: before.projectId, to: after.projectId };
  if (before.fromPartyId !== after.fromPartyId) changes.fromPartyId = { from: before.fromPartyId, to: after.fromPartyId };
  if (before.toPartyId !== after.toPartyId) changes.toPartyId = { from: before.toPartyId, to: after.toPartyId };
  if (before.excludeFromSync !== after.excludeFromSync)
    changes.excludeFromSync = { from: before.excludeFromSync, to: after.excludeFromSync };
  if (before.description !== after.description) changes.description = { from: before.description, to: after.description };
  if (documentRequests.length > 0) changes.documentsRequested = documentRequests;
  return changes;
}

export type Evaluation = { draft: RuleDraft; applied: AppliedRule[]; documentRequests: DocumentRequest[] };

/**
 * Runs the rules of `ruleSet` that `trigger` selects, in priority order, each seeing the changes
 * of the ones before. A matching rule applies its actions and is reported (RULE_APPLIED); a
 * matching rule with stopProcessing ends the run.
 */
export function evaluateRules(ruleSet: RuleSet, draft: RuleDraft, ctx: RuleContext, trigger?: RuleTrigger): Evaluation {
  let current = draft;
  let subject = subjectOf(current, ctx);
  const applied: AppliedRule[] = [];
  const documentRequests: DocumentRequest[] = [];
  for (const rule of ruleSet.rules) {
    if (trigger && !rule.triggers.has(trigger)) continue;
    if (!matchesSubject(rule, subject)) continue;
    const result = applyActions(rule, current);
    current = result.draft;
    subject = subjectOf(current, ctx);
    applied.push({ ruleId: rule.id, ruleName: rule.name, changes: result.changes });
    documentRequests.push(...result.documentRequests);
    if (rule.stopProcessing) break;
  }
  return { draft: current, applied, documentRequests };
}

/** The parties whose names a run over `drafts` may read: the drafts' own and those SET_PARTY actions set. */
export function partyIdsToName(ruleSet: RuleSet, drafts: RuleDraft[]): number[] {
  const ids = new Set<number>();
  for (const d of drafts) {
    if (d.fromPartyId !== null) ids.add(d.fromPartyId);
    if (d.toPartyId !== null) ids.add(d.toPartyId);
  }
  for (const rule of ruleSet.rules) for (const a of rule.actions) if (a.type === 'SET_PARTY') ids.add(a.partyId);
  return [...ids];
}
