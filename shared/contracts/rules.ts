import { z } from 'zod/v4';
import {
  BigIntIdValue,
  CountValue,
  Currency,
  IntId,
  IntIdValue,
  IsoDate,
  NAME_MAX,
  NonBlankText,
  Text,
  TEXT_MAX,
  Timestamp,
  Uuid,
  UuidValue,
} from './common.js';
import { DOCUMENT_NAME_MAX, DocumentType } from './documents.js';
import { EntryType, MAX_AMOUNT_CENTS, MAX_ENTRY_TAGS } from './entries.js';

/** CONTRACT §16 limits. */
export const RULES_PER_WORKSPACE_MAX = 200;
export const RULE_CONDITIONS_MAX = 20;
export const RULE_ACTIONS_MAX = 10;
export const RULE_PATTERN_MAX = 200;
/** `in` lists of a condition (ids, currencies). */
export const RULE_IN_MAX = 100;
export const RULE_PREVIEW_LIMIT_MAX = 100;

/** DOCUMENT: an entry created from an inbox document (CONTRACT §21); RECURRING: an occurrence of a recurring entry (§25); a rule runs on those only when it names them. */
export const RULE_TRIGGERS = ['CREATE', 'INGEST', 'BANK', 'DOCUMENT', 'RECURRING'] as const;
/** The triggers of a rule that names none (CONTRACT §16: "default all three"). */
export const DEFAULT_RULE_TRIGGERS = ['CREATE', 'INGEST', 'BANK'] as const;
export const RuleTrigger = z.enum(RULE_TRIGGERS);
export const RuleMatch = z.enum(['ALL', 'ANY']);

const TEXT_OPERATORS = ['contains', 'equals', 'startsWith', 'endsWith', 'matches'] as const;
export const TEXT_FIELDS = ['description', 'reference', 'counterparty'] as const;

/**
 * description / reference / counterparty, case-insensitive. A `matches` value is an RE2 regular
 * expression of at most RULE_PATTERN_MAX characters (whether RE2 accepts it is checked by the
 * service: backreferences and lookaround are a 400).
 */
const TextCondition = z
  .object({
    field: z.enum(TEXT_FIELDS),
    operator: z.enum(TEXT_OPERATORS),
    value: z.string().min(1).max(TEXT_MAX),
  })
  .strict()
  .refine((c) => c.operator !== 'matches' || c.value.length <= RULE_PATTERN_MAX, {
    message: `a pattern has at most ${RULE_PATTERN_MAX} characters`,
    path: ['value'],
  });

/** An amount a condition compares with (CONTRACT §16): 0 is allowed, so `gt 0` says "any amount". */
const ConditionAmount = z.number().int().min(0).max(MAX_AMOUNT_CENTS);

const AmountCompare = z
  .object({ field: z.literal('amountCents'), operator: z.enum(['eq', 'gt', 'gte', 'lt', 'lte']), value: ConditionAmount })
  .strict();
const AmountBetween = z
  .object({
    field: z.literal('amountCents'),
    operator: z.literal('between'),
    value: z.tuple([ConditionAmount, ConditionAmount]).describe('[min, max], both inclusive'),
  })
  .strict()
  .refine((c) => c.value[0] <= c.value[1], { message: 'between needs [min, max] with min <= max', path: ['value'] });

// x-enum-varnames: Go's oapi-codegen would name the constant of "entryType" EntryType, the name of the EntryType type
const EntryTypeField = z.literal('entryType').meta({ 'x-enum-varnames': ['RuleFieldEntryType'] });
const EntryTypeCondition = z.object({ field: EntryTypeField, operator: z.literal('eq'), value: EntryType }).strict();

const eqOrIn = <F extends string, V extends z.ZodType>(field: F, value: V) => [
  z.object({ field: z.literal(field), operator: z.literal('eq'), value }).strict(),
  z.object({ field: z.literal(field), operator: z.literal('in'), value: z.array(value).min(1).max(RULE_IN_MAX) }).strict(),
];

export const RuleCondition = z.union([
  TextCondition,
  AmountCompare,
  AmountBetween,
  EntryTypeCondition,
  ...eqOrIn('baseCurrency', Currency),
  ...eqOrIn('projectId', IntId),
  ...eqOrIn('partyId', IntId),
]);

export const RuleAction = z.discriminatedUnion('type', [
  z.object({ type: z.literal('SET_CATEGORY'), categoryId: Uuid }).strict(),
  z.object({ type: z.literal('ADD_TAGS'), tagIds: z.array(IntId).min(1).max(MAX_ENTRY_TAGS) }).strict(),
  z.object({ type: z.literal('SET_PROJECT'), projectId: IntId }).strict(),
  z
    .object({ type: z.literal('SET_PARTY'), partyId: IntId.describe("the counterparty side: INCOME's from-party, EXPENSE's to-party") })
    .strict(),
  z.object({ type: z.literal('SET_EXCLUDE_FROM_SYNC'), value: z.boolean() }).strict(),
  z.object({ type: z.literal('SET_DESCRIPTION'), description: z.string().max(TEXT_MAX) }).strict(),
  z
    .object({
      type: z.literal('REQUEST_DOCUMENT'),
      documentName: NonBlankText(DOCUMENT_NAME_MAX),
      documentType: DocumentType,
    })
    .strict(),
]);

const Conditions = z.array(RuleCondition).min(1).max(RULE_CONDITIONS_MAX);
const Actions = z.array(RuleAction).min(1).max(RULE_ACTIONS_MAX);
const Triggers = z
  .array(RuleTrigger)
  .min(1)
  .max(RULE_TRIGGERS.length)
  .refine((t) => new Set(t).size === t.length, 'a trigger is named once');
const RuleName = NonBlankText(NAME_MAX);
const Priority = z.number().int().min(0).max(1_000_000).describe('lower runs first');

export const RuleObject = z.object({
  id: UuidValue,
  workspaceId: IntIdValue,
  name: Text(NAME_MAX),
  priority: z.number().int().min(0).max(1_000_000),
  isActive: z.boolean(),
  match: RuleMatch,
  conditions: z.array(RuleCondition).max(RULE_CONDITIONS_MAX),
  actions: z.array(RuleAction).max(RULE_ACTIONS_MAX),
  stopProcessing: z.boolean(),
  triggers: z.array(RuleTrigger).max(RULE_TRIGGERS.length),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreateRuleInput = z
  .object({
    workspaceId: IntId,
    name: RuleName,
    priority: Priority.default(0),
    isActive: z.boolean().default(true),
    match: RuleMatch.default('ALL'),
    conditions: Conditions,
    actions: Actions,
    stopProcessing: z.boolean().default(false),
    triggers: Triggers.default([...DEFAULT_RULE_TRIGGERS]),
  })
  .strict();

export const UpdateRuleInput = z
  .object({
    id: Uuid,
    name: RuleName.optional(),
    priority: Priority.optional(),
    isActive: z.boolean().optional(),
    match: RuleMatch.optional(),
    conditions: Conditions.optional(),
    actions: Actions.optional(),
    stopProcessing: z.boolean().optional(),
    triggers: Triggers.optional(),
  })
  .strict();

export const RuleIdInput = z.object({ id: Uuid });

const rangeInOrder = (r: { fromDate?: string; toDate?: string }) => !r.fromDate || !r.toDate || r.fromDate <= r.toDate;
const RANGE = { message: 'fromDate must not be after toDate', path: ['fromDate'] };

export const PreviewRuleInput = z
  .object({
    workspaceId: IntId,
    match: RuleMatch.default('ALL'),
    conditions: Conditions,
    actions: Actions,
    fromDate: IsoDate.optional(),
    toDate: IsoDate.optional(),
    limit: z.number().int().min(1).max(RULE_PREVIEW_LIMIT_MAX).default(20),
  })
  .strict()
  .refine(rangeInOrder, RANGE);

export const ApplyRuleInput = z
  .object({ id: Uuid, fromDate: IsoDate.optional(), toDate: IsoDate.optional() })
  .strict()
  .refine(rangeInOrder, RANGE);

const Change = <T extends z.ZodType>(value: T) => z.object({ from: value, to: value });
const TagIds = z.array(IntIdValue).max(MAX_ENTRY_TAGS);

/** What a rule changed (or would change) on one entry: `{field: {from, to}}`, and the documents it requests. */
/** A document a rule's REQUEST_DOCUMENT action asks for. */
export const RequestedDocument = z.object({ documentName: Text(DOCUMENT_NAME_MAX), documentType: DocumentType });

export const RuleChanges = z.object({
  categoryId: Change(UuidValue.nullable()).optional(),
  tagIds: Change(TagIds).optional(),
  projectId: Change(IntIdValue).optional(),
  fromPartyId: Change(IntIdValue.nullable()).optional(),
  toPartyId: Change(IntIdValue.nullable()).optional(),
  excludeFromSync: Change(z.boolean()).optional(),
  description: Change(Text(TEXT_MAX).nullable()).optional(),
  documentsRequested: z.array(RequestedDocument).max(RULE_ACTIONS_MAX).optional(),
});

export const RulePreviewItem = z.object({ entryId: BigIntIdValue, changes: RuleChanges });
export const PreviewRuleResult = z.object({
  matched: CountValue,
  items: z.array(RulePreviewItem).max(RULE_PREVIEW_LIMIT_MAX),
});

export const ApplyRuleResult = z.object({ matched: CountValue, changed: CountValue, skipped: CountValue });

export const ListRulesQuery = z.object({ workspaceId: IntId });

export type RuleTrigger = z.infer<typeof RuleTrigger>;
export type RuleMatch = z.infer<typeof RuleMatch>;
export type RuleCondition = z.infer<typeof RuleCondition>;
export type RuleAction = z.infer<typeof RuleAction>;
export type RuleObject = z.infer<typeof RuleObject>;
export type CreateRuleInput = z.infer<typeof CreateRuleInput>;
export type UpdateRuleInput = z.infer<typeof UpdateRuleInput>;
export type PreviewRuleInput = z.infer<typeof PreviewRuleInput>;
export type PreviewRuleResult = z.infer<typeof PreviewRuleResult>;
export type ApplyRuleInput = z.infer<typeof ApplyRuleInput>;
export type ApplyRuleResult = z.infer<typeof ApplyRuleResult>;
export type RuleChanges = z.infer<typeof RuleChanges>;
