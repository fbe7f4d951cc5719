import { z } from 'zod/v4';
import {
  BigIntIdValue,
  CountValue,
  Currency,
  CurrencyValue,
  IntId,
  IntIdValue,
  IsoDate,
  Page,
  PageQuery,
  Text,
  TEXT_MAX,
  Timestamp,
  Uuid,
  UuidValue,
} from './common.js';
import { AmountCents, EntryType, MAX_ENTRY_TAGS, REFERENCE_MAX } from './entries.js';

/** Recurring entries (CONTRACT §25): an entry kept once and made on the dates of an RFC 5545 RRULE. */

export const RRULE_MAX = 500;
/** The dates one GET /recurring-entries/{id}/occurrences may cover. */
export const OCCURRENCE_RANGE_MAX_DAYS = 366;

/** The entry each occurrence creates: POST /entries' fields but the project and the date. */
export const RecurringTemplateInput = z
  .object({
    entryType: EntryType,
    amountCents: AmountCents,
    baseCurrency: Currency,
    fromPartyId: IntId.optional(),
    toPartyId: IntId.optional(),
    description: z.string().max(TEXT_MAX).optional(),
    reference: z.string().max(REFERENCE_MAX).optional(),
    categoryId: Uuid.optional(),
    tagIds: z.array(IntId).max(MAX_ENTRY_TAGS).optional(),
  })
  .strict();

export const RecurringTemplate = z.object({
  entryType: EntryType,
  amountCents: AmountCents,
  baseCurrency: CurrencyValue,
  fromPartyId: IntIdValue.nullable(),
  toPartyId: IntIdValue.nullable(),
  description: Text(TEXT_MAX).nullable(),
  reference: Text(REFERENCE_MAX).nullable(),
  categoryId: UuidValue.nullable(),
  tagIds: z.array(IntIdValue).max(MAX_ENTRY_TAGS),
});

const Rrule = z
  .string()
  .min(1)
  .max(RRULE_MAX)
  .describe(
    'an RFC 5545 RRULE value without DTSTART (startDate is that): FREQ (DAILY, WEEKLY, MONTHLY, YEARLY), INTERVAL, COUNT or UNTIL, BYDAY (ordinals such as 1MO or -1FR for MONTHLY and YEARLY), BYMONTHDAY (-1 = the last day), BYMONTH, BYSETPOS; any other part is a 400 naming it, as is a rule that can never produce a date (a BYSETPOS beyond what one period holds, a BYMONTHDAY no month of BYMONTH has, a DAILY INTERVAL of whole weeks missing every BYDAY)',
  );

export const RecurringEntryObject = z.object({
  id: UuidValue,
  workspaceId: IntIdValue,
  projectId: IntIdValue,
  template: RecurringTemplate,
  rrule: Text(RRULE_MAX),
  startDate: IsoDate,
  endDate: IsoDate.nullable(),
  isActive: z.boolean(),
  nextOccurrence: IsoDate.nullable().describe('the next date the scheduler makes, null when none is left or the entry is inactive'),
  createdBy: UuidValue.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreateRecurringEntryInput = z
  .object({
    projectId: IntId,
    template: RecurringTemplateInput,
    rrule: Rrule,
    startDate: IsoDate,
    endDate: IsoDate.optional().describe('the last date an occurrence may fall on (inclusive)'),
  })
  .strict();

export const UpdateRecurringEntryInput = z
  .object({
    id: Uuid,
    template: RecurringTemplateInput.optional(),
    rrule: Rrule.optional(),
    startDate: IsoDate.optional(),
    endDate: IsoDate.nullable().optional(),
    isActive: z.boolean().optional(),
  })
  .strict();

export const RecurringEntryIdInput = z.object({ id: Uuid });
export const ListRecurringEntriesQuery = z.object({ workspaceId: IntId, projectId: IntId.optional(), ...PageQuery });
export const RecurringEntryPage = Page(RecurringEntryObject);

export const OccurrenceStatus = z.enum(['SCHEDULED', 'CREATED', 'SKIPPED']);
export const OccurrenceObject = z.object({
  occurrenceDate: IsoDate,
  status: OccurrenceStatus,
  entryId: BigIntIdValue.nullable(),
  reason: Text(TEXT_MAX).nullable().describe('why a SKIPPED occurrence was not made'),
});
export const OccurrencesQuery = z.object({
  id: Uuid,
  from: IsoDate,
  to: IsoDate.describe(`inclusive; at most ${OCCURRENCE_RANGE_MAX_DAYS} days after from`),
});
export const OccurrenceList = z.array(OccurrenceObject).max(OCCURRENCE_RANGE_MAX_DAYS);

export const RunRecurringEntryInput = z
  .object({ id: Uuid, through: IsoDate.optional().describe('the last date to make (default today, UTC); a future date is a 400') })
  .strict();
export const RunRecurringEntryResult = z.object({
  created: CountValue,
  skipped: CountValue,
  entryIds: z.array(BigIntIdValue).max(100_000),
});

export type RecurringTemplateInput = z.infer<typeof RecurringTemplateInput>;
export type RecurringTemplate = z.infer<typeof RecurringTemplate>;
export type RecurringEntryObject = z.infer<typeof RecurringEntryObject>;
export type CreateRecurringEntryInput = z.infer<typeof CreateRecurringEntryInput>;
export type UpdateRecurringEntryInput = z.infer<typeof UpdateRecurringEntryInput>;
export type ListRecurringEntriesQuery = z.infer<typeof ListRecurringEntriesQuery>;
export type OccurrenceObject = z.infer<typeof OccurrenceObject>;
export type RunRecurringEntryResult = z.infer<typeof RunRecurringEntryResult>;
