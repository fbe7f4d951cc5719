import { z } from 'zod/v4';
import {
  BigIntId,
  BigIntIdValue,
  CentsValue,
  CountValue,
  Currency,
  CurrencyValue,
  IntId,
  IntIdValue,
  IsoDate,
  Timestamp,
} from './common.js';

/** CONTRACT §17: a rate has at most this many decimals and significant digits. */
export const RATE_MAX_DECIMALS = 10;
export const RATE_MAX_SIGNIFICANT = 15;
/** Longest rate text: 15 integer digits, a point and 10 decimals (after leading zeros). */
const RATE_TEXT_MAX = 40;

/** A rate in its canonical spelling: no leading zeros before the units digit, no trailing decimal zeros ("1.50" → "1.5"). */
export function canonicalRate(text: string): string {
  const [whole, fraction = ''] = text.split('.');
  const units = whole.replace(/^0+(?=\d)/, '');
  const decimals = fraction.replace(/0+$/, '');
  return decimals ? `${units}.${decimals}` : units;
}

/**
 * Why `text` is not a valid rate (CONTRACT §17: a decimal string > 0 with at most 10
 * decimals and 15 significant digits), or undefined when it is one. Decimals and
 * significant digits are counted on the canonical spelling: "1.50" has 1 decimal and 2
 * significant digits, "0.0061" 4 decimals and 2 significant digits.
 */
export function rateProblem(text: string): string | undefined {
  if (!/^\d{1,40}(\.\d{1,40})?$/.test(text)) return 'must be a decimal number such as "1.0956" (digits, optionally one point and decimals)';
  const canonical = canonicalRate(text);
  const [whole, fraction = ''] = canonical.split('.');
  if (/^0*$/.test(whole + fraction)) return 'must be greater than 0';
  if (fraction.length > RATE_MAX_DECIMALS) return `must have at most ${RATE_MAX_DECIMALS} decimals`;
  if ((whole + fraction).replace(/^0+/, '').length > RATE_MAX_SIGNIFICANT) {
    return `must have at most ${RATE_MAX_SIGNIFICANT} significant digits`;
  }
  return undefined;
}

export const RateValue = z
  .string()
  .max(RATE_TEXT_MAX)
  .superRefine((text, ctx) => {
    const problem = rateProblem(text);
    if (problem) ctx.addIssue({ code: 'custom', message: `rate ${problem}` });
  })
  // > 0 (a non-zero digit before or after the point) with at most 10 decimals once trailing zeros
  // are dropped; the 15 significant digits are checked by the service alone
  .meta({ pattern: '^(?:0*[1-9][0-9]*(?:\\.[0-9]{1,10}0*)?|0+\\.[0-9]{0,9}[1-9]0*)$', example: '0.9127' })
  .describe('decimal string > 0, at most 10 decimals and 15 significant digits: the value of one unit of currency in the base currency');

export const RateSource = z.enum(['MANUAL', 'IMPORT']);

export const FxRateObject = z.object({
  id: BigIntIdValue,
  workspaceId: IntIdValue,
  currency: CurrencyValue,
  rateDate: IsoDate,
  rate: z.string().max(RATE_TEXT_MAX).meta({ pattern: '^[0-9]+(\\.[0-9]+)?$' }).describe('canonical decimal string ("1.5", not "1.50")'),
  source: RateSource,
  createdAt: Timestamp,
});

export const UpsertFxRateInput = z
  .object({
    workspaceId: IntId,
    currency: Currency.describe('not the workspace base currency (its rate is always "1")'),
    rateDate: IsoDate,
    rate: RateValue,
  })
  .strict();

const fromNotAfterTo = (q: { fromDate?: string; toDate?: string }) => !(q.fromDate && q.toDate && q.fromDate > q.toDate);
const RANGE_MESSAGE = { message: 'fromDate must not be after toDate', path: ['fromDate'] };

export const ListFxRatesQuery = z
  .object({
    workspaceId: IntId,
    currency: Currency.optional(),
    fromDate: IsoDate.optional().describe('first rate date, inclusive'),
    toDate: IsoDate.optional().describe('last rate date, inclusive'),
  })
  .refine(fromNotAfterTo, RANGE_MESSAGE);

/** Rates one listing returns at most (a year of daily rates for ~270 currencies); narrow the filters beyond. */
export const FX_RATES_LIST_MAX = 100_000;
export const FxRateList = z.array(FxRateObject).max(FX_RATES_LIST_MAX);

export const FxRateIdPath = z.object({ id: BigIntId });

export const ImportFxRatesQuery = z.object({ workspaceId: IntId });
export const ImportFxRatesResult = z.object({
  imported: CountValue.describe('rates that did not exist before'),
  updated: CountValue.describe('existing rates (same currency and date) replaced'),
});
/** The multipart body of the import, for the OpenAPI document. */
export const ImportFxRatesForm = z.object({
  file: z.string().meta({
    format: 'binary',
    description: 'CSV date,currency,rate or ECB eurofxref XML (daily or historical); at most UPLOAD_LIMIT_BYTES (default 25 MiB, else 413)',
  }),
});

export const RevalueInput = z
  .object({
    workspaceId: IntId,
    fromDate: IsoDate.describe('first entry date, inclusive'),
    toDate: IsoDate.describe('last entry date, inclusive'),
    currency: Currency.optional().describe('only entries in this currency'),
  })
  .strict()
  .refine(fromNotAfterTo, RANGE_MESSAGE);
export const RevalueResult = z.object({
  revalued: CountValue.describe('entries whose fxRate, fxRateDate or amountBaseCents changed (each records FX_REVALUED {from, to})'),
  unchanged: CountValue.describe('entries with a rate whose valuation was already right'),
  skippedClosed: CountValue.describe('entries in closed accounting periods, never revalued'),
  missingRate: CountValue.describe('entries without a usable rate (a valuation they had is cleared, with FX_REVALUED)'),
});

/** The valuation an entry carries (CONTRACT §17): all three set, or all three null (no rate). */
export const EntryValuation = z.object({
  fxRate: z.string().max(RATE_TEXT_MAX).nullable().describe('rate used, "1" for the base currency; null without a rate'),
  fxRateDate: IsoDate.nullable(),
  amountBaseCents: CentsValue.nullable().describe('amountCents in the workspace base currency, rounded half to even'),
});

export type FxRateObject = z.infer<typeof FxRateObject>;
export type UpsertFxRateInput = z.infer<typeof UpsertFxRateInput>;
export type ListFxRatesQuery = z.infer<typeof ListFxRatesQuery>;
export type ImportFxRatesResult = z.infer<typeof ImportFxRatesResult>;
export type RevalueInput = z.infer<typeof RevalueInput>;
export type RevalueResult = z.infer<typeof RevalueResult>;
export type EntryValuation = z.infer<typeof EntryValuation>;
