import { z } from 'zod/v4';
import { EntryValuation } from './fx.js';
import {
  BigIntId,
  BigIntIdValue,
  CentsValue,
  CountValue,
  Currency,
  CurrencyValue,
  EmailValue,
  IntId,
  IntIdValue,
  IsoDate,
  NAME_MAX,
  NonBlankText,
  Page,
  PageQuery,
  QueryBool,
  QueryList,
  RecordKey,
  Sha256Hex,
  Text,
  TEXT_MAX,
  Timestamp,
  Uuid,
  UuidValue,
} from './common.js';
import { DocumentStatus, DocumentType } from './documents.js';
import { PartyObject } from './parties.js';

export const EntryType = z.enum(['INCOME', 'EXPENSE']);
export const EntryStatus = z.enum(['PENDING', 'UNDER_REVIEW', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED']);
export const LinkType = z.enum(['REFUND', 'REIMBURSEMENT', 'CORRECTION']);
export const ActorType = z.enum(['USER', 'INTEGRATION', 'WEBHOOK', 'SYSTEM', 'API_KEY']);

export const MAX_AMOUNT_CENTS = 1_000_000_000_000_000;
export const AmountCents = z.number().int().positive().max(MAX_AMOUNT_CENTS);
export const REFERENCE_MAX = 255;
/** Line items, payments and tags an entry can hold (the create body's limits; nothing else adds them). */
export const MAX_ENTRY_ITEMS = 500;
export const MAX_ENTRY_TRANSACTIONS = 500;
export const MAX_ENTRY_TAGS = 100;
export const NOTE_MAX = 10_000;
const Description = z.string().max(TEXT_MAX);
const Reference = z.string().max(REFERENCE_MAX);
const Reason = NonBlankText(TEXT_MAX);

export const EntryObject = z.object({
  id: BigIntIdValue,
  workspaceId: IntIdValue,
  projectId: IntIdValue,
  entrySourceId: IntIdValue,
  entryType: EntryType,
  entryStatus: EntryStatus,
  statusReason: Text(TEXT_MAX).nullable(),
  baseCurrency: CurrencyValue,
  amountCents: AmountCents,
  fromPartyId: IntIdValue.nullable(),
  toPartyId: IntIdValue.nullable(),
  entryDate: IsoDate,
  description: Text(TEXT_MAX).nullable(),
  reference: Text(REFERENCE_MAX).nullable(),
  isReconciled: z.boolean(),
  reconciledAt: Timestamp.nullable(),
  reconciledBy: UuidValue.nullable(),
  excludeFromSync: z.boolean(),
  isComplete: z.boolean(),
  categoryId: UuidValue.nullable().describe('the entry’s category (CONTRACT §16): an active category of its workspace'),
  createdBy: UuidValue.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  ...EntryValuation.shape,
  recurringEntryId: UuidValue.nullable().describe('the recurring entry this entry is an occurrence of (CONTRACT §25)'),
  occurrenceDate: IsoDate.nullable().describe('the occurrence’s date in its recurring entry’s rule (CONTRACT §25)'),
});

export const EntryItem = z.object({
  id: BigIntIdValue,
  description: Text(TEXT_MAX),
  quantity: z.number(),
  unitAmountCents: CentsValue,
  amountCents: CentsValue,
  categoryId: UuidValue.nullable(),
});
export const EntryTransaction = z.object({
  id: BigIntIdValue,
  transactionDate: IsoDate,
  amountCents: CentsValue,
  method: Text(50).nullable(),
  externalRef: Text(REFERENCE_MAX).nullable(),
});
export const EntryTag = z.object({
  id: IntIdValue,
  name: Text(100),
  color: Text(7).meta({ pattern: '^#[0-9a-fA-F]{6}$' }).nullable(),
});
export const EntryDocumentSummary = z.object({
  id: UuidValue,
  entryId: BigIntIdValue,
  documentName: Text(255),
  documentType: DocumentType,
  status: DocumentStatus,
  mimeType: Text(255).nullable(),
  fileSize: CountValue.nullable(),
  sha256: Sha256Hex.nullable(),
  uploadedBy: UuidValue.nullable(),
  approvedBy: UuidValue.nullable(),
  comment: Text(TEXT_MAX).nullable(),
  rejectionReason: Text(TEXT_MAX).nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const EntryDetail = EntryObject.extend({
  items: z.array(EntryItem).max(MAX_ENTRY_ITEMS),
  transactions: z.array(EntryTransaction).max(MAX_ENTRY_TRANSACTIONS),
  documents: z.array(EntryDocumentSummary).describe('every document of the entry (not paged)'),
  tags: z.array(EntryTag).max(MAX_ENTRY_TAGS),
  parties: z.object({ from: PartyObject.nullable(), to: PartyObject.nullable() }),
});

export const ItemInput = z
  .object({
    description: NonBlankText(TEXT_MAX),
    quantity: z.number().positive().max(1e12).default(1),
    unitAmountCents: z.number().int().min(0).max(MAX_AMOUNT_CENTS),
    amountCents: AmountCents,
    categoryId: Uuid.optional(),
  })
  .strict();
export const TransactionInput = z
  .object({
    transactionDate: IsoDate,
    amountCents: AmountCents,
    method: NonBlankText(50).optional(),
    externalRef: NonBlankText(REFERENCE_MAX).optional(),
  })
  .strict();

export const CreateEntryInput = z
  .object({
    projectId: IntId,
    entrySourceId: IntId.optional(),
    entryType: EntryType,
    baseCurrency: Currency,
    amountCents: AmountCents,
    fromPartyId: IntId.optional(),
    toPartyId: IntId.optional(),
    entryDate: IsoDate,
    description: Description.optional(),
    reference: Reference.optional(),
    excludeFromSync: z.boolean().optional(),
    categoryId: Uuid.optional(),
    tagIds: z.array(IntId).max(MAX_ENTRY_TAGS).optional(),
    items: z.array(ItemInput).max(MAX_ENTRY_ITEMS).optional(),
    transactions: z.array(TransactionInput).max(MAX_ENTRY_TRANSACTIONS).optional(),
  })
  .strict();

export const UpdateEntryInput = z
  .object({
    id: BigIntId,
    description: Description.nullable().optional(),
    reference: Reference.nullable().optional(),
    entryDate: IsoDate.optional(),
    amountCents: AmountCents.optional(),
    fromPartyId: IntId.nullable().optional(),
    toPartyId: IntId.nullable().optional(),
    excludeFromSync: z.boolean().optional(),
    categoryId: Uuid.nullable().optional(),
  })
  .strict();

export const EntryIdInput = z.object({ id: BigIntId });
export const ReplaceTagsInput = z.object({ id: BigIntId, tagIds: z.array(IntId).max(MAX_ENTRY_TAGS) }).strict();
/** CONTRACT §5 status table: the target statuses marked `*`, whose change needs a `reason` (§2: else 400). */
export const STATUSES_NEEDING_REASON = ['REJECTED', 'CANCELLED', 'VOIDED'] as const satisfies readonly EntryStatus[];
/** The body of `PATCH /entries/{id}/status` to REJECTED, CANCELLED or VOIDED: the reason is required. */
export const EntryStatusChangeWithReason = z
  .object({ status: EntryStatus.extract(STATUSES_NEEDING_REASON), reason: Reason.describe('Why; kept in `statusReason`') })
  .strict();
/** The body of `PATCH /entries/{id}/status` to PENDING, UNDER_REVIEW or COMPLETED: a reason may be given. */
export const EntryStatusChangeReasonOptional = z
  .object({ status: EntryStatus.exclude(STATUSES_NEEDING_REASON), reason: Reason.optional().describe('Why; kept in `statusReason`') })
  .strict();
/** The body of `PATCH /entries/{id}/status {status, reason?}`, by target status (CONTRACT §5 table). */
export const EntryStatusChange = z.discriminatedUnion('status', [EntryStatusChangeWithReason, EntryStatusChangeReasonOptional]);
/**
 * The input of `PATCH /entries/{id}/status`: the path's `id` and an EntryStatusChange. trpc-to-openapi takes
 * only an object as an input, so the object says the fields and its check runs EntryStatusChange on them; the document shows the body as EntryStatusChange (server/trpc/openapi-union-bodies.ts).
 */
export const UpdateStatusInput = z
  .object({ id: BigIntId, status: EntryStatus, reason: Reason.optional() })
  .strict()
  .superRefine(({ status, reason }, ctx) => {
    // the object has checked each field: what EntryStatusChange can still refuse is a missing reason
    if (!EntryStatusChange.safeParse({ status, reason }).success) {
      ctx.addIssue({ code: 'custom', path: ['reason'], message: `A reason is required to set ${status}` });
    }
  })
  // the same rule for a reader of this object's JSON Schema (an MCP client: a tool's input is one object)
  .meta({
    allOf: [
      { if: { properties: { status: { enum: [...STATUSES_NEEDING_REASON] } }, required: ['status'] }, then: { required: ['reason'] } },
    ],
  });
export const VoidEntryInput = z.object({ id: BigIntId, reason: Reason }).strict();
export const RefundInput = z
  .object({ id: BigIntId, amountCents: AmountCents, description: Description.optional(), entryDate: IsoDate.optional() })
  .strict();
export const ReimburseInput = z
  .object({
    id: BigIntId,
    amountCents: AmountCents,
    fromPartyId: IntId,
    toPartyId: IntId,
    description: Description.optional(),
    entryDate: IsoDate.optional(),
    entryType: EntryType.optional(),
  })
  .strict();
export const CorrectInput = z
  .object({
    id: BigIntId,
    reason: Reason,
    amountCents: AmountCents.optional(),
    entryDate: IsoDate.optional(),
    description: Description.optional(),
    reference: Reference.optional(),
    fromPartyId: IntId.optional(),
    toPartyId: IntId.optional(),
  })
  .strict();
export const ReconcileInput = z.object({ id: BigIntId, isReconciled: z.boolean() }).strict();

export const RelatedEntry = z.object({ linkType: LinkType, role: z.enum(['ORIGINAL', 'DERIVED']), entry: EntryObject });

export const NoteObject = z.object({
  id: Uuid,
  entryId: BigIntIdValue,
  content: Text(NOTE_MAX),
  authorId: Uuid,
  author: z.object({ id: Uuid, name: Text(NAME_MAX), email: EmailValue }),
  createdAt: Timestamp,
});
export const AddNoteInput = z.object({ id: BigIntId, content: z.string().min(1).max(NOTE_MAX) }).strict();

export const EventObject = z.object({
  id: Uuid,
  entryId: BigIntIdValue,
  kind: Text(50).meta({ pattern: '^[A-Z_]+$' }).describe('ENTRY_CREATED, STATUS_CHANGED, … (CONTRACT §5)'),
  actorType: ActorType,
  actorId: Text(255).nullable(),
  data: z.record(RecordKey, z.unknown()),
  createdAt: Timestamp,
  prevHash: Sha256Hex.nullable(),
  hash: Sha256Hex,
});
export const VerifyResult = z.object({ valid: z.boolean(), count: CountValue, firstBrokenEventId: UuidValue.nullable() });

const TagIdList = QueryList(IntId, 100);

/** Filters shared by GET /entries and the CSV export. */
export const EntryFilters = z.object({
  workspaceId: IntId,
  projectId: IntId.optional(),
  tagIds: TagIdList.optional().describe('comma-separated tag ids; OR logic'),
  entryType: EntryType.optional(),
  entryStatus: EntryStatus.optional(),
  fromDate: IsoDate.optional(),
  toDate: IsoDate.optional(),
  partyId: IntId.optional().describe('matches fromParty or toParty'),
  amountMin: z.coerce.number<number>().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  amountMax: z.coerce.number<number>().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  search: z.string().max(200).optional().describe('case-insensitive substring of description or reference'),
  isReconciled: QueryBool.optional(),
  sortBy: z.enum(['entryDate', 'amountCents', 'createdAt']).default('entryDate'),
  sortOrder: z.enum(['ASC', 'DESC']).default('DESC'),
});
const rangesInOrder = (f: { fromDate?: string; toDate?: string; amountMin?: number; amountMax?: number }) =>
  !(f.fromDate && f.toDate && f.fromDate > f.toDate) &&
  !(f.amountMin !== undefined && f.amountMax !== undefined && f.amountMin > f.amountMax);
const RANGE_MESSAGE = { message: 'fromDate must not be after toDate, nor amountMin above amountMax' };
export const EntryFiltersChecked = EntryFilters.refine(rangesInOrder, RANGE_MESSAGE);
/** The longest `cursor` accepted (a cursor is a position and a digest, far shorter; CONTRACT §18). */
export const CURSOR_MAX = 512;
/** The shape of every nextCursor (server/lib/page-cursor.ts: base64url payload, a point, base64url signature): `cursor=0` is no cursor. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$';
export const ListEntriesQuery = EntryFilters.extend({
  ...PageQuery,
  cursor: z
    .string()
    .min(1)
    .max(CURSOR_MAX)
    .meta({ pattern: CURSOR_PATTERN })
    .optional()
    .describe('the nextCursor of the previous page, with the same filters and sort (CONTRACT §18); not with a non-zero offset'),
})
  .refine(rangesInOrder, RANGE_MESSAGE)
  .refine((q) => q.cursor === undefined || q.offset === 0, {
    message: 'cursor cannot be combined with a non-zero offset',
    path: ['offset'],
  });
/** A page of entries: the paged list of CONTRACT §3 and the cursor of the next page (§18), null on the last page. */
export const EntryPage = Page(EntryObject).extend({
  nextCursor: z
    .string()
    .max(CURSOR_MAX)
    .nullable()
    .describe('pass as `cursor` (same filters and sort) for the next page; null on the last page'),
});

export type EntryObject = z.infer<typeof EntryObject>;
export type EntryDetail = z.infer<typeof EntryDetail>;
export type CreateEntryInput = z.infer<typeof CreateEntryInput>;
export type UpdateEntryInput = z.infer<typeof UpdateEntryInput>;
export type EntryFilters = z.infer<typeof EntryFilters>;
export type ListEntriesQuery = z.infer<typeof ListEntriesQuery>;
export type EntryPage = z.infer<typeof EntryPage>;
export type EntryStatus = z.infer<typeof EntryStatus>;
export type EntryType = z.infer<typeof EntryType>;
export type LinkType = z.infer<typeof LinkType>;
export type NoteObject = z.infer<typeof NoteObject>;
export type EventObject = z.infer<typeof EventObject>;
