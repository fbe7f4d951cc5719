import { z } from 'zod/v4';
import { ISO_4217_EXPONENTS, isIsoCurrency } from '../currencies.js';

/**
 * Every string in a contract has a maxLength and every array a maxItems (OpenAPI document, Spectral
 * OWASP ruleset): input limits are real validation (400), output limits state what the inputs and
 * the database constraints allow. Integer formats (int32/int64) are derived from the bounds in
 * server/trpc/openapi.ts.
 */
export const INT32_MAX = 2_147_483_647;

/** Text limits used across the contracts where no narrower rule applies. */
export const NAME_MAX = 200;
export const TEXT_MAX = 2000;
export const EXTERNAL_ID_MAX = 255;
export const EMAIL_MAX = 320;
/** Error bodies: the presenter cuts a longer message and keeps this many zod issues (server/lib/errors.ts). */
export const ERROR_MESSAGE_MAX = 2000;
export const ERROR_ISSUES_MAX = 100;

export const IntId = z.coerce.number<number>().int().positive().max(INT32_MAX);
export const BigIntId = z.coerce.number<number>().int().positive().max(Number.MAX_SAFE_INTEGER);
// the maxLength of a value whose format or pattern fixes its length is documented (meta), not checked twice
export const Uuid = z.uuid().meta({ maxLength: 36 });
export const Timestamp = z.string().max(30).meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
export const IsoDate = z.iso.date().meta({ maxLength: 10 }).describe('YYYY-MM-DD');
/** A currency code as stored and returned (responses): three upper-case letters. */
export const CurrencyValue = z
  .string()
  .regex(/^[A-Z]{3}$/, 'ISO 4217 code, upper case')
  .meta({ maxLength: 3 });
/** A currency a request names (CONTRACT §5): a code of the ISO 4217 list (shared/currencies.ts); `ABC` or `XTS` is a 400. */
// the document spells the list out as the pattern, so that a generated request names a real currency (issue 30)
export const Currency = CurrencyValue.refine(isIsoCurrency, 'not a currency of the ISO 4217 list')
  .meta({ pattern: `^(?:${[...ISO_4217_EXPONENTS.keys()].sort().join('|')})$` })
  .describe('ISO 4217 currency code');
export const Country = z
  .string()
  .regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 code, upper case')
  .meta({ maxLength: 2 });
/**
 * A list-valued query parameter (CONTRACT §1): the comma form `1,2`, the repeated form and the bracket
 * form (the HTTP layer gives the last two as an array) all mean the same list; empty items are dropped.
 */
// typed input: a client gives the list (or the comma form); the HTTP layer's strings are coerced by the items
export const QueryList = <T extends z.ZodType>(item: T, max: number) =>
  z.preprocess(
    (v: z.input<T>[] | string) =>
      typeof v === 'string' || (Array.isArray(v) && v.every((s) => typeof s === 'string'))
        ? ([] as string[])
            .concat(v)
            .flatMap((s) => s.split(','))
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    z.array(item).min(1).max(max),
  );
export const QueryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

/* ---------- output values (responses) ---------- */

/** Id of an INTEGER table (workspaces, projects, parties, tags, entry sources): int32. */
export const IntIdValue = z.number().int().positive().max(INT32_MAX);
/** Id of a BIGINT table (entries): int64 within the safe-integer range. */
export const BigIntIdValue = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** Money in cents (BIGINT, sums may be negative): int64 within the safe-integer range. */
export const CentsValue = z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
/** A count of rows (int64: entries are BIGINT rows). */
export const CountValue = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** A count bounded by a request limit (batch results, page sizes): int32. */
export const SmallCount = z.number().int().min(0).max(INT32_MAX);
/** A uuid a response refers to (users, integrations …): documented, the database column is uuid. */
export const UuidValue = z.string().max(36).meta({ format: 'uuid' });
/** A stored email address (validated as an email where a client writes it; documented here). */
export const EmailValue = z.string().max(EMAIL_MAX).meta({ format: 'email' });
/** An email address a request gives: zod's syntax, and RFC 5321's 64 characters at most before the "@" (found by Schemathesis). */
export const EmailInput = z
  .email()
  .max(EMAIL_MAX)
  .refine((address) => address.slice(0, address.lastIndexOf('@')).length <= 64, 'the part before "@" may have at most 64 characters');
/** Free text of a response, limited as its input and its database column are. */
export const Text = (max: number) => z.string().max(max);
/** Text a record keeps as written (JSON object keys of config, event data, changes). */
export const RecordKey = z.string().max(NAME_MAX);
/** A lower-case hex SHA-256 digest. */
export const Sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .meta({ maxLength: 64 });

export const WorkspaceQuery = z.object({ workspaceId: IntId });
export const IdPath = z.object({ id: IntId });
export const UuidPath = z.object({ id: Uuid });
export const Success = z.object({ success: z.literal(true) });

export const PAGE_MAX = 100;
export const PageQuery = {
  limit: z.coerce.number<number>().int().min(1).max(PAGE_MAX).default(20),
  offset: z.coerce.number<number>().int().min(0).max(1_000_000_000).default(0),
};

export const Page = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item).max(PAGE_MAX),
    total: CountValue,
    limit: z.number().int().min(1).max(PAGE_MAX),
    offset: z.number().int().min(0).max(1_000_000_000),
  });

export const ErrorBody = z.object({
  message: z.string(),
  code: z.string(),
  issues: z.array(z.unknown()).optional(),
});

/** Characters String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), written as themselves. */
const TRIMMED = '\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
/** A text that is not blank once trimmed, without NUL: what `.trim().min(1)` accepts, as a pattern. */
export const NON_BLANK_PATTERN = `^[^\\x00]*[^\\x00${TRIMMED}][^\\x00]*$`;

/** A text the caller must not leave blank: trimmed, 1 to `max` characters, documented with NON_BLANK_PATTERN. */
export const NonBlankText = (max: number, blankMessage?: string) =>
  z.string().trim().min(1, blankMessage).max(max).meta({ pattern: NON_BLANK_PATTERN });
