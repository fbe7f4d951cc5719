import { z } from 'zod/v4';
import {
  CentsValue,
  Country,
  CountValue,
  Currency,
  CurrencyValue,
  IntId,
  IntIdValue,
  IsoDate,
  NAME_MAX,
  QueryBool,
  Text,
} from './common.js';
import { TAG_NAME_MAX } from './tags.js';

/** CONTRACT §12: raw values per entry type in a distribution. */
export const DISTRIBUTION_VALUES_LIMIT = 10_000;
/** A zero-filled timeline longer than this is refused (400) rather than built. */
export const TIMELINE_MAX_PERIODS = 100_000;

export const COUNTED_STATUSES = ['PENDING', 'UNDER_REVIEW', 'COMPLETED'] as const;

/** Filters every report takes besides its dates (CONTRACT §11). */
const ReportFilters = {
  workspaceId: IntId,
  projectId: IntId.optional().describe('only entries of this project'),
  currency: Currency.optional().describe('only entries in this base currency'),
  normalize: QueryBool.optional().describe(
    'true: amounts are the entries’ amountBaseCents (CONTRACT §17) in the workspace base currency; entries without a rate are left out ' +
      'of amounts and counts (the summary and the distribution report them as `unconverted`)',
  ),
};
const DateRange = {
  from: IsoDate.optional().describe('first day, inclusive'),
  to: IsoDate.optional().describe('last day, inclusive'),
};
const fromNotAfterTo = (q: { from?: string; to?: string }) => !(q.from && q.to && q.from > q.to);
const RANGE_MESSAGE = { message: 'from must not be after to', path: ['from'] };

export const ReportQuery = z.object({ ...ReportFilters, ...DateRange }).refine(fromNotAfterTo, RANGE_MESSAGE);
export const TimelineGroupBy = z.enum(['day', 'week', 'month']);
export const TimelineQuery = z
  .object({
    ...ReportFilters,
    ...DateRange,
    groupBy: TimelineGroupBy.default('month').describe('day (YYYY-MM-DD), ISO week (YYYY-Www) or month (YYYY-MM)'),
  })
  .refine(fromNotAfterTo, RANGE_MESSAGE);
export const CalendarQuery = z.object({
  ...ReportFilters,
  year: z.coerce.number<number>().int().min(1).max(9999).describe('calendar year; replaces from/to'),
});

const Cents = CentsValue;
const Count = CountValue;
/** Base currencies are three upper-case letters (CHECK ^[A-Z]{3}$), so at most 26^3 distinct ones. */
const MAX_CURRENCIES = 26 ** 3;
/** A calendar year has at most 366 days. */
const MAX_CALENDAR_DAYS = 366;

export const CurrencyBreakdownRow = z.object({
  currency: CurrencyValue,
  incomeCents: Cents,
  expenseCents: Cents,
  netCents: Cents,
  entryCount: Count,
});
/** CONTRACT §17: the counted entries a normalised report leaves out for want of a rate. */
export const Unconverted = z
  .object({
    entryCount: Count,
    amountCentsByCurrency: z
      .record(CurrencyValue, Cents)
      .meta({ maxProperties: MAX_CURRENCIES })
      .describe('per currency, the signed net in its minor units (income positive, expense negative)'),
  })
  .describe('only with normalize=true: counted entries without a rate, left out of the totals');

export const SummaryReport = z.object({
  totalIncomeCents: Cents,
  totalExpenseCents: Cents,
  netCents: Cents,
  entryCount: Count,
  avgTransactionCents: Cents,
  currency: z
    .string()
    .regex(/^([A-Z]{3}|MIXED)$/)
    .meta({ maxLength: 5 })
    .nullable()
    .describe('the one currency, MIXED, or null when there are no entries'),
  currencies: z.array(CurrencyValue).max(MAX_CURRENCIES),
  isCurrencyMixed: z.boolean(),
  currencyBreakdown: z
    .array(CurrencyBreakdownRow)
    .max(MAX_CURRENCIES)
    .describe('per entry currency, in its own minor units; with normalize=true it still covers every counted entry, converted or not'),
  unconverted: Unconverted.optional(),
});

export const TimelineRow = z.object({
  period: z
    .string()
    .regex(/^\d{4}-(\d{2}-\d{2}|W\d{2}|\d{2})$/)
    .meta({ maxLength: 10 })
    .describe('YYYY-MM-DD, YYYY-Www or YYYY-MM'),
  incomeCents: Cents,
  expenseCents: Cents,
  netCents: Cents,
  entryCount: Count,
});

export const PartyRow = z.object({
  partyId: IntIdValue.nullable(),
  partyName: Text(NAME_MAX),
  partyType: Text(20).nullable().describe('PERSON or ORGANIZATION; null for the Unassigned row'),
  country: Country.nullable(),
  totalIncomeCents: Cents,
  totalExpenseCents: Cents,
  entryCount: Count,
});

export const TagRow = z.object({
  tagId: IntIdValue,
  tagName: Text(TAG_NAME_MAX),
  totalCents: Cents,
  incomeCents: Cents,
  expenseCents: Cents,
  entryCount: Count,
});

export const ProjectRow = z.object({
  projectId: IntIdValue,
  projectName: Text(NAME_MAX),
  totalIncomeCents: Cents,
  totalExpenseCents: Cents,
  netCents: Cents,
  entryCount: Count,
});

export const FlowRow = z.object({
  fromPartyId: IntIdValue.nullable(),
  fromPartyName: Text(NAME_MAX),
  toPartyId: IntIdValue.nullable(),
  toPartyName: Text(NAME_MAX),
  totalCents: Cents,
  entryCount: Count,
});

export const CalendarDay = z.object({ date: IsoDate, totalCents: Cents.describe('income positive, expense negative'), entryCount: Count });
export const CalendarReport = z.array(CalendarDay).max(MAX_CALENDAR_DAYS);

/**
 * Timeline rows: zero-filled ranges are refused beyond TIMELINE_MAX_PERIODS; without both bounds only
 * periods with entries appear, so at most one row per day of the years 0000–9999.
 */
export const TIMELINE_MAX_ROWS = 10_000 * 366;
export const TimelineReport = z.array(TimelineRow).max(TIMELINE_MAX_ROWS);

export const DistributionStats = z.object({
  count: Count,
  min: Cents.nullable(),
  max: Cents.nullable(),
  mean: Cents.nullable(),
  median: Cents.nullable(),
  q1: Cents.nullable(),
  q3: Cents.nullable(),
  values: z
    .array(Cents)
    .max(DISTRIBUTION_VALUES_LIMIT)
    .describe(`ascending; the smallest ${DISTRIBUTION_VALUES_LIMIT} when there are more`),
  valuesTruncated: z.literal(true).optional().describe(`present when count > ${DISTRIBUTION_VALUES_LIMIT}`),
});
export const DistributionReport = z.object({ INCOME: DistributionStats, EXPENSE: DistributionStats, unconverted: Unconverted.optional() });

export type ReportQuery = z.infer<typeof ReportQuery>;
export type ReportFilters = { workspaceId: number; projectId?: number; currency?: string; from?: string; to?: string; normalize?: boolean };
export type Unconverted = z.infer<typeof Unconverted>;
export type TimelineQuery = z.infer<typeof TimelineQuery>;
export type TimelineGroupBy = z.infer<typeof TimelineGroupBy>;
export type CalendarQuery = z.infer<typeof CalendarQuery>;
export type SummaryReport = z.infer<typeof SummaryReport>;
export type CurrencyBreakdownRow = z.infer<typeof CurrencyBreakdownRow>;
export type TimelineRow = z.infer<typeof TimelineRow>;
export type PartyRow = z.infer<typeof PartyRow>;
export type TagRow = z.infer<typeof TagRow>;
export type ProjectRow = z.infer<typeof ProjectRow>;
export type FlowRow = z.infer<typeof FlowRow>;
export type CalendarDay = z.infer<typeof CalendarDay>;
export type DistributionStats = z.infer<typeof DistributionStats>;
export type DistributionReport = z.infer<typeof DistributionReport>;
