import { z } from 'zod/v4';
import { BigIntId, Currency, IntId, IsoDate, PageQuery, QueryBool, Timestamp, Uuid } from './common.js';
import { PartyObject } from './parties.js';

export const EntryType = z.enum(['INCOME', 'EXPENSE']);
export const EntryStatus = z.enum(['PENDING', 'UNDER_REVIEW', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED']);
export const LinkType = z.enum(['REFUND', 'REIMBURSEMENT', 'CORRECTION']);
export const ActorType = z.enum(['USER', 'INTEGRATION', 'WEBHOOK', 'SYSTEM']);

export const MAX_AMOUNT_CENTS = 1_000_000_000_000_000;
export const AmountCents = z.number().int().positive().max(MAX_AMOUNT_CENTS);
const Description = z.string().max(2000);
const Reference = z.string().max(255);
const Reason = z.string().trim().min(1).max(2000);

export const EntryObject = z.object({
  id: z.number().int(),
  workspaceId: z.number().int(),
  projectId: z.number().int(),
  entrySourceId: z.number().int(),
  entryType: EntryType,
  entryStatus: EntryStatus,
  statusReason: z.string().nullable(),
  baseCurrency: z.string(),
  amountCents: z.number().int(),
  fromPartyId: z.number().int().nullable(),
  toPartyId: z.number().int().nullable(),
  entryDate: IsoDate,
  description: z.string().nullable(),
  reference: z.string().nullable(),
  isReconciled: z.boolean(),
  reconciledAt: Timestamp.nullable(),
  reconciledBy: z.string().nullable(),
  excludeFromSync: z.boolean(),
  isComplete: z.boolean(),
  createdBy: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const EntryItem = z.object({
  id: z.number().int(),
  description: z.string(),
  quantity: z.number(),
  unitAmountCents: z.number().int(),
  amountCents: z.number().int(),
  categoryId: z.string().nullable(),
});
export const EntryTransaction = z.object({
  id: z.number().int(),
  transactionDate: IsoDate,
  amountCents: z.number().int(),
  method: z.string().nullable(),
  externalRef: z.string().nullable(),
});
export const EntryTag = z.object({ id: z.number().int(), name: z.string(), color: z.string().nullable() });
export const EntryDocumentSummary = z.object({
  id: z.string(),
  entryId: z.number().int(),
  documentName: z.string(),
  documentType: z.string(),
  status: z.string(),
  mimeType: z.string().nullable(),
  fileSize: z.number().int().nullable(),
  sha256: z.string().nullable(),
  uploadedBy: z.string().nullable(),
  approvedBy: z.string().nullable(),
  comment: z.string().nullable(),
  rejectionReason: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const EntryDetail = EntryObject.extend({
  items: z.array(EntryItem),
  transactions: z.array(EntryTransaction),
  documents: z.array(EntryDocumentSummary),
  tags: z.array(EntryTag),
  parties: z.object({ from: PartyObject.nullable(), to: PartyObject.nullable() }),
});

const ItemInput = z
  .object({
    description: z.string().trim().min(1).max(2000),
    quantity: z.number().positive().max(1e12).default(1),
    unitAmountCents: z.number().int().min(0).max(MAX_AMOUNT_CENTS),
    amountCents: AmountCents,
    categoryId: Uuid.optional(),
  })
  .strict();
const TransactionInput = z
  .object({
    transactionDate: IsoDate,
    amountCents: AmountCents,
    method: z.string().trim().min(1).max(50).optional(),
    externalRef: z.string().trim().min(1).max(255).optional(),
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
    tagIds: z.array(IntId).max(100).optional(),
    items: z.array(ItemInput).max(500).optional(),
    transactions: z.array(TransactionInput).max(500).optional(),
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
  })
  .strict();

export const EntryIdInput = z.object({ id: BigIntId });
export const ReplaceTagsInput = z.object({ id: BigIntId, tagIds: z.array(IntId).max(100) }).strict();
export const UpdateStatusInput = z.object({ id: BigIntId, status: EntryStatus, reason: Reason.optional() }).strict();
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
  entryId: z.number().int(),
  content: z.string(),
  authorId: Uuid,
  author: z.object({ id: Uuid, name: z.string(), email: z.string() }),
  createdAt: Timestamp,
});
export const AddNoteInput = z.object({ id: BigIntId, content: z.string().min(1).max(10000) }).strict();

export const EventObject = z.object({
  id: Uuid,
  entryId: z.number().int(),
  kind: z.string(),
  actorType: ActorType,
  actorId: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: Timestamp,
  prevHash: z.string().nullable(),
  hash: z.string(),
});
export const VerifyResult = z.object({ valid: z.boolean(), count: z.number().int(), firstBrokenEventId: z.string().nullable() });

const TagIdList = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : v,
  z.array(IntId).min(1).max(100),
);

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
  amountMin: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  amountMax: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
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
export const ListEntriesQuery = EntryFilters.extend(PageQuery).refine(rangesInOrder, RANGE_MESSAGE);

export type EntryObject = z.infer<typeof EntryObject>;
export type EntryDetail = z.infer<typeof EntryDetail>;
export type CreateEntryInput = z.infer<typeof CreateEntryInput>;
export type UpdateEntryInput = z.infer<typeof UpdateEntryInput>;
export type EntryFilters = z.infer<typeof EntryFilters>;
export type ListEntriesQuery = z.infer<typeof ListEntriesQuery>;
export type EntryStatus = z.infer<typeof EntryStatus>;
export type EntryType = z.infer<typeof EntryType>;
export type LinkType = z.infer<typeof LinkType>;
export type NoteObject = z.infer<typeof NoteObject>;
export type EventObject = z.infer<typeof EventObject>;
