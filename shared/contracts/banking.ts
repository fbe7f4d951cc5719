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
  NAME_MAX,
  NonBlankText,
  PageQuery,
  Sha256Hex,
  SmallCount,
  Text,
  TEXT_MAX,
  Timestamp,
  Uuid,
  UuidValue,
} from './common.js';
import { EntryObject, MAX_AMOUNT_CENTS, MAX_ENTRY_TAGS } from './entries.js';

/* ---------- CSV mapping (CONTRACT §14) ---------- */

export const CSV_COLUMN_NAME_MAX = 200;
/** A column: its header name, or its 0-based index (files without a header). */
export const CsvColumnName = z.string().min(1).max(CSV_COLUMN_NAME_MAX);
export const CsvColumnIndex = z.number().int().min(0).max(1000);
export const CsvColumn = z.union([CsvColumnName, CsvColumnIndex]);
export const DateFormat = z.enum(['YYYY-MM-DD', 'DD.MM.YYYY', 'DD/MM/YYYY', 'MM/DD/YYYY']);
// documented as a pattern, not an enum: Go's oapi-codegen refuses an enum value holding a tab
export const CsvDelimiter = z.enum([',', ';', '\t']).meta({
  override: ({ jsonSchema }) => {
    delete jsonSchema.enum;
    Object.assign(jsonSchema, { minLength: 1, maxLength: 1, pattern: '^[,;\\t]$', description: 'a comma, a semicolon or a tab (U+0009)' });
  },
});

const CsvMappingShape = {
  dateColumn: CsvColumn,
  amountColumn: CsvColumn.optional(),
  debitColumn: CsvColumn.optional(),
  creditColumn: CsvColumn.optional(),
  descriptionColumn: CsvColumn.optional(),
  counterpartyColumn: CsvColumn.optional(),
  referenceColumn: CsvColumn.optional(),
  externalIdColumn: CsvColumn.optional(),
  dateFormat: DateFormat,
  decimalSeparator: z.enum(['.', ',']),
  delimiter: CsvDelimiter.optional().describe('Detected from the first line when absent'),
  hasHeader: z.boolean().default(true),
  encoding: z
    .enum(['utf-8', 'utf-16', 'iso-8859-1', 'windows-1252'])
    .optional()
    .describe('the text encoding of the file (default utf-8; utf-16 needs a byte-order mark); bytes it does not define are a 400'),
};

const oneAmountSource = (m: { amountColumn?: unknown; debitColumn?: unknown; creditColumn?: unknown }) =>
  (m.amountColumn !== undefined) !== (m.debitColumn !== undefined && m.creditColumn !== undefined) &&
  (m.debitColumn === undefined) === (m.creditColumn === undefined);
const AMOUNT_SOURCE = { message: 'Give amountColumn, or debitColumn and creditColumn (not both)' };

export const CsvMapping = z.object(CsvMappingShape).strict().refine(oneAmountSource, AMOUNT_SOURCE);
export const CsvMappingObject = z.object({ ...CsvMappingShape, hasHeader: z.boolean() });

/* ---------- bank accounts ---------- */

export const BankAccountObject = z.object({
  id: UuidValue,
  workspaceId: IntIdValue,
  name: Text(NAME_MAX),
  currency: CurrencyValue,
  accountNumberLast4: Text(4).nullable(),
  projectId: IntIdValue,
  partyId: IntIdValue.nullable(),
  entrySourceId: IntIdValue,
  openingBalanceCents: CentsValue,
  openingDate: IsoDate.nullable(),
  dateToleranceDays: z.number().int().min(0).max(30),
  autoMatch: z.boolean(),
  csvMapping: CsvMappingObject.nullable(),
  ledgerCategoryId: UuidValue.nullable().describe('the ASSET account its lines post to in the books (CONTRACT §23); null: the BANK role'),
  isActive: z.boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const Name = NonBlankText(NAME_MAX);
const OpeningBalance = z.number().int().min(-MAX_AMOUNT_CENTS).max(MAX_AMOUNT_CENTS);
const Tolerance = z.number().int().min(0).max(30);

export const CreateBankAccountInput = z
  .object({
    workspaceId: IntId,
    name: Name,
    currency: Currency,
    projectId: IntId,
    accountNumber: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9 -]{4,64}$/, '4 to 64 letters, digits, spaces or dashes')
      .optional()
      .meta({ maxLength: 64 }),
    partyId: IntId.optional(),
    openingBalanceCents: OpeningBalance.optional(),
    openingDate: IsoDate.optional(),
    dateToleranceDays: Tolerance.optional(),
    autoMatch: z.boolean().optional(),
    csvMapping: CsvMapping.optional(),
    ledgerCategoryId: Uuid.optional().describe('an ASSET category of the workspace (CONTRACT §23); without it the BANK role'),
  })
  .strict();

export const UpdateBankAccountInput = z
  .object({
    id: Uuid,
    name: Name.optional(),
    partyId: IntId.nullable().optional(),
    openingBalanceCents: OpeningBalance.optional(),
    openingDate: IsoDate.nullable().optional(),
    dateToleranceDays: Tolerance.optional(),
    autoMatch: z.boolean().optional(),
    csvMapping: CsvMapping.nullable().optional(),
    ledgerCategoryId: Uuid.nullable().optional().describe('an ASSET category of the workspace (CONTRACT §23); null: the BANK role'),
  })
  .strict();

export const BankAccountPath = z.object({ id: Uuid });

/* ---------- statements ---------- */

export const StatementFormat = z.enum(['CSV', 'OFX', 'CAMT053']);

export const StatementObject = z.object({
  id: UuidValue,
  bankAccountId: UuidValue,
  format: StatementFormat,
  fileName: Text(255).nullable(),
  sha256: Sha256Hex,
  lineCount: SmallCount,
  importedCount: SmallCount,
  duplicateCount: SmallCount,
  autoMatchedCount: SmallCount,
  openingBalanceCents: CentsValue.nullable(),
  closingBalanceCents: CentsValue.nullable(),
  periodStart: IsoDate.nullable(),
  periodEnd: IsoDate.nullable(),
  importedBy: UuidValue.nullable(),
  createdAt: Timestamp,
});

/** The text fields of the multipart import body (`file` is the part with the statement). */
export const ImportFields = z
  .object({
    format: StatementFormat.optional(),
    csvMapping: z.string().max(10_000).optional().describe('CsvMapping as JSON text; saved on the account'),
  })
  .strict();

export const ImportForm = z
  .object({
    file: z
      .string()
      .meta({ format: 'binary' })
      .describe('The statement file (CSV, OFX or camt.053); at most UPLOAD_LIMIT_BYTES (default 25 MiB, else 413)'),
    format: StatementFormat.optional(),
    csvMapping: z.string().max(10_000).optional().describe('CsvMapping as JSON text'),
  })
  .strict();

/* ---------- lines ---------- */

export const LineStatus = z.enum(['UNMATCHED', 'MATCHED', 'IGNORED']);

export const BankLineObject = z.object({
  id: BigIntIdValue,
  bankAccountId: UuidValue,
  statementId: UuidValue,
  bookingDate: IsoDate,
  valueDate: IsoDate.nullable(),
  amountCents: CentsValue.describe('Signed: positive = money in'),
  currency: CurrencyValue,
  description: Text(TEXT_MAX).nullable(),
  counterpartyName: Text(255).nullable(),
  counterpartyAccount: Text(64).nullable(),
  reference: Text(255).nullable(),
  externalId: Text(255).nullable(),
  status: LineStatus,
  matchId: UuidValue.nullable(),
  ignoredReason: Text(TEXT_MAX).nullable(),
  createdAt: Timestamp,
});

export const ListLinesQuery = z.object({
  id: Uuid,
  status: LineStatus.optional(),
  fromDate: IsoDate.optional(),
  toDate: IsoDate.optional(),
  search: NonBlankText(200).optional(),
  ...PageQuery,
});

export const LinePath = z.object({ id: BigIntId });
export const IgnoreLineInput = z.object({ id: BigIntId, reason: NonBlankText(TEXT_MAX) }).strict();

/* ---------- suggestions ---------- */

const Unit = z.number().min(0).max(1);
export const SuggestionObject = z.object({
  entryIds: z.array(BigIntIdValue).min(1).max(5),
  amountCents: CentsValue.describe('Absolute amount the entries add up to'),
  score: Unit,
  reasons: z.object({ amount: Unit, date: Unit, text: Unit, reference: Unit }),
});

/* ---------- matches ---------- */

export const MATCH_SIDE_MAX = 50;
export const MatchObject = z.object({
  id: UuidValue,
  workspaceId: IntIdValue,
  bankAccountId: UuidValue,
  lineIds: z.array(BigIntIdValue).max(MATCH_SIDE_MAX),
  entryIds: z.array(BigIntIdValue).max(MATCH_SIDE_MAX),
  method: z.enum(['MANUAL', 'AUTO']),
  createdBy: UuidValue.nullable(),
  createdAt: Timestamp,
});

const distinct = (ids: number[]) => new Set(ids).size === ids.length;
export const CreateMatchInput = z
  .object({
    lineIds: z.array(BigIntId).min(1).max(MATCH_SIDE_MAX).refine(distinct, 'lineIds must be distinct'),
    entryIds: z.array(BigIntId).min(1).max(MATCH_SIDE_MAX).refine(distinct, 'entryIds must be distinct'),
  })
  .strict();
export const MatchPath = z.object({ id: Uuid });
export const AutoMatchResult = z.object({ matched: CountValue });

/* ---------- entry from a line ---------- */

export const CreateEntryFromLineInput = z
  .object({
    id: BigIntId,
    projectId: IntId.optional(),
    partyId: IntId.optional(),
    description: z.string().max(TEXT_MAX).optional(),
    tagIds: z.array(IntId).max(MAX_ENTRY_TAGS).optional(),
  })
  .strict();
export const EntryWithMatch = z.object({ entry: EntryObject, match: MatchObject });

/* ---------- reconciliation status ---------- */

export const ReconciliationQuery = z.object({ id: Uuid, asOf: IsoDate.optional().describe('Default: today (UTC)') });
const CountAmount = z.object({ count: CountValue, amountCents: CentsValue });
/** The latest statement's closing balance against the balance its lines add up to. */
export const StatementBalance = z.object({
  id: UuidValue,
  closingBalanceCents: CentsValue.nullable(),
  computedBalanceCents: CentsValue.nullable(),
  agrees: z.boolean().nullable(),
});

export const ReconciliationStatus = z.object({
  bankAccountId: UuidValue,
  asOf: IsoDate,
  openingBalanceCents: CentsValue,
  statementBalanceCents: CentsValue,
  matched: CountAmount,
  unmatched: CountAmount,
  ignored: CountAmount,
  lastStatement: StatementBalance.nullable(),
});

export type CsvMapping = z.infer<typeof CsvMappingObject>;
export type BankAccountObject = z.infer<typeof BankAccountObject>;
export type CreateBankAccountInput = z.infer<typeof CreateBankAccountInput>;
export type UpdateBankAccountInput = z.infer<typeof UpdateBankAccountInput>;
export type StatementFormat = z.infer<typeof StatementFormat>;
export type StatementObject = z.infer<typeof StatementObject>;
export type BankLineObject = z.infer<typeof BankLineObject>;
export type ListLinesQuery = z.infer<typeof ListLinesQuery>;
export type SuggestionObject = z.infer<typeof SuggestionObject>;
export type MatchObject = z.infer<typeof MatchObject>;
export type CreateMatchInput = z.infer<typeof CreateMatchInput>;
export type CreateEntryFromLineInput = z.infer<typeof CreateEntryFromLineInput>;
export type ReconciliationStatus = z.infer<typeof ReconciliationStatus>;
