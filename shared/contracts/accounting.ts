import { z } from 'zod/v4';
import {
  BigIntId,
  BigIntIdValue,
  CountValue,
  ERROR_MESSAGE_MAX,
  EXTERNAL_ID_MAX,
  IntId,
  IntIdValue,
  NAME_MAX,
  NonBlankText,
  PageQuery,
  QueryBool,
  RecordKey,
  SmallCount,
  Text,
  TEXT_MAX,
  Timestamp,
  Uuid,
  UuidValue,
} from './common.js';
import { EntryObject } from './entries.js';

/* ---------- connections (CONTRACT §7) ---------- */

export const PROVIDER_TYPE_PATTERN = /^[A-Z][A-Z0-9_]{1,49}$/;
/** MANUAL, QUICKBOOKS, or a custom type served by the generic HTTP adapter (needs config.baseUrl). */
export const ProviderType = z
  .string()
  .regex(PROVIDER_TYPE_PATTERN, 'MANUAL, QUICKBOOKS or a custom type matching ^[A-Z][A-Z0-9_]{1,49}$')
  .meta({ maxLength: 50 });
export const BUILT_IN_PROVIDERS = ['MANUAL', 'QUICKBOOKS'] as const;
export const SyncMode = z.enum(['MANUAL', 'MANUAL_PUSH', 'AUTO_PUSH', 'BIDIRECTIONAL']);

/** Provider-specific secrets: write-only, stored encrypted, never returned. */
export const Credentials = z.record(RecordKey, z.unknown()).describe('Provider-specific secrets; write-only, never returned');

/** What a QUICKBOOKS connection's credentials must hold (more keys are kept as given). */
export const QuickBooksCredentials = z
  .object({
    realmId: z.string().min(1),
    accessToken: z.string().min(1),
    refreshToken: z.string().min(1),
    tokenExpiresAt: z.iso.datetime().optional(),
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    webhookVerifierToken: z.string().min(1).optional(),
  })
  .loose();

/**
 * Connection settings. `webhookSecret` is write-only (stored encrypted, `hasWebhookSecret` tells
 * whether it is set; null clears it, leaving it out keeps it); `baseUrl` is required for custom types.
 */
export const ConnectionConfigInput = z
  .object({
    webhookSecret: z.string().min(1).max(256).nullable().optional(),
    baseUrl: z.string().max(2048).optional(),
  })
  .loose();

/** The connection rules refuse a config whose JSON is longer (so no key of it is longer either). */
export const CONFIG_JSON_MAX = 16 * 1024;
const Cron = NonBlankText(200).describe('5-field cron expression (minute hour day-of-month month day-of-week)');
const ConnectionName = NonBlankText(200);
export const MAX_CONNECTION_PROJECTS = 1000;
const ProjectIds = z.array(IntId).max(MAX_CONNECTION_PROJECTS);

export const ConnectionObject = z.object({
  id: Uuid,
  workspaceId: IntIdValue,
  providerType: ProviderType,
  name: Text(NAME_MAX),
  config: z.record(z.string().max(CONFIG_JSON_MAX), z.unknown()),
  hasWebhookSecret: z.boolean(),
  syncMode: SyncMode,
  requireReview: z.boolean(),
  requireCompletenessForSync: z.boolean(),
  syncScheduleCron: Text(200).nullable(),
  projectIds: z.array(IntIdValue).max(MAX_CONNECTION_PROJECTS),
  isActive: z.boolean(),
  lastPulledAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreateConnectionInput = z
  .object({
    workspaceId: IntId,
    providerType: ProviderType,
    name: ConnectionName,
    credentials: Credentials,
    config: ConnectionConfigInput.optional(),
    syncMode: SyncMode.optional(),
    requireReview: z.boolean().optional(),
    requireCompletenessForSync: z.boolean().optional(),
    syncScheduleCron: Cron.nullable().optional(),
    projectIds: ProjectIds.optional(),
  })
  .strict();

export const UpdateConnectionInput = z
  .object({
    id: Uuid,
    name: ConnectionName.optional(),
    credentials: Credentials.optional(),
    config: ConnectionConfigInput.optional(),
    syncMode: SyncMode.optional(),
    requireReview: z.boolean().optional(),
    requireCompletenessForSync: z.boolean().optional(),
    syncScheduleCron: Cron.nullable().optional(),
    projectIds: ProjectIds.optional(),
    isActive: z.boolean().optional(),
  })
  .strict();

export const ConnectionIdInput = z.object({ id: Uuid });
export const BackfillResult = z.object({ queued: CountValue });

/* ---------- categories (chart of accounts) ---------- */

export const AccountType = z.enum(['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE']);
const CATEGORY_CODE_MAX = 50;
const CategoryCode = NonBlankText(CATEGORY_CODE_MAX);
const CategoryName = NonBlankText(NAME_MAX);
const ExternalId = NonBlankText(EXTERNAL_ID_MAX);

export const CategoryObject = z.object({
  id: Uuid,
  workspaceId: IntIdValue,
  code: Text(CATEGORY_CODE_MAX),
  name: Text(NAME_MAX),
  accountType: AccountType,
  parentId: Uuid.nullable(),
  externalId: Text(EXTERNAL_ID_MAX).nullable(),
  isActive: z.boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreateCategoryInput = z
  .object({
    workspaceId: IntId,
    code: CategoryCode,
    name: CategoryName,
    accountType: AccountType,
    parentId: Uuid.nullable().optional(),
    externalId: ExternalId.nullable().optional(),
  })
  .strict();

export const UpdateCategoryInput = z
  .object({
    id: Uuid,
    code: CategoryCode.optional(),
    name: CategoryName.optional(),
    accountType: AccountType.optional(),
    parentId: Uuid.nullable().optional(),
    externalId: ExternalId.nullable().optional(),
    isActive: z.boolean().optional(),
  })
  .strict();

export const ListCategoriesQuery = z.object({
  workspaceId: IntId,
  includeInactive: QueryBool.optional().describe('true lists deactivated categories too'),
});
export const CategoryIdInput = z.object({ id: Uuid });

/* ---------- mappings ---------- */

export const ConnectionQuery = z.object({ connectionId: Uuid });
const EXTERNAL_TYPE_MAX = 100;
const EXTERNAL_NAME_MAX = 255;
const TAX_CODE_MAX = 50;

export const PartyMappingFields = z
  .object({
    partyId: IntId,
    externalId: ExternalId,
    externalType: NonBlankText(EXTERNAL_TYPE_MAX),
    externalName: NonBlankText(EXTERNAL_NAME_MAX),
  })
  .strict();

export const PartyMappingObject = z.object({
  id: Uuid,
  connectionId: Uuid,
  partyId: IntIdValue,
  externalId: Text(EXTERNAL_ID_MAX),
  externalType: Text(EXTERNAL_TYPE_MAX),
  externalName: Text(EXTERNAL_NAME_MAX),
  createdAt: Timestamp,
});
export const CreatePartyMappingInput = PartyMappingFields.extend({ connectionId: Uuid }).strict();
export const MAX_PARTY_MAPPING_BATCH = 500;
export const BatchPartyMappingsInput = z
  .object({ connectionId: Uuid, mappings: z.array(PartyMappingFields).min(1).max(MAX_PARTY_MAPPING_BATCH) })
  .strict();
export const BatchUpsertResult = z.object({
  created: SmallCount.max(MAX_PARTY_MAPPING_BATCH),
  updated: SmallCount.max(MAX_PARTY_MAPPING_BATCH),
});

export const TaxMappingObject = z.object({
  id: Uuid,
  connectionId: Uuid,
  taxCode: Text(TAX_CODE_MAX),
  externalTaxCodeId: Text(EXTERNAL_ID_MAX),
  externalName: Text(EXTERNAL_NAME_MAX).nullable(),
  ratePercent: z.number().nullable(),
  createdAt: Timestamp,
});
export const CreateTaxMappingInput = z
  .object({
    connectionId: Uuid,
    taxCode: NonBlankText(TAX_CODE_MAX),
    externalTaxCodeId: ExternalId,
    externalName: NonBlankText(EXTERNAL_NAME_MAX).optional(),
    ratePercent: z
      .number()
      .min(0)
      .max(1000)
      .refine((v) => Math.round(v * 10_000) / 10_000 === v, 'at most 4 decimal places')
      .meta({ multipleOf: 0.0001 })
      .describe('the tax rate in percent, 0–1000, with at most 4 decimal places')
      .optional(),
  })
  .strict();

export const ProjectRoute = z.object({ projectId: IntIdValue, projectName: Text(NAME_MAX) });
export const ProjectRoutes = z.array(ProjectRoute).max(MAX_CONNECTION_PROJECTS);
export const SetProjectRoutingInput = z.object({ connectionId: Uuid, projectIds: ProjectIds }).strict();
export const MappingIdInput = z.object({ id: Uuid });

/* ---------- reviews (CONTRACT §8) ---------- */

export const ReviewStatus = z.enum(['QUEUED', 'IN_REVIEW', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED', 'CANCELLED']);
const Notes = NonBlankText(TEXT_MAX);

export const ReviewObject = z.object({
  id: Uuid,
  entryId: BigIntIdValue,
  connectionId: Uuid.nullable(),
  status: ReviewStatus,
  reviewerId: UuidValue.nullable(),
  notes: Text(TEXT_MAX).nullable(),
  categoryId: Uuid.nullable(),
  decidedAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  entry: EntryObject,
});

export const CreateReviewInput = z.object({ entryId: BigIntId, connectionId: Uuid.nullable().optional() }).strict();
export const ReviewIdInput = z.object({ id: Uuid });
export const ApproveReviewInput = z.object({ id: Uuid, categoryId: Uuid.optional(), notes: Notes.optional() }).strict();
export const ReviewNotesInput = z.object({ id: Uuid, notes: Notes }).strict();

export const MAX_REVIEW_BATCH = 100;
const ReviewIds = z.array(Uuid).min(1).max(MAX_REVIEW_BATCH);
export const BatchApproveInput = z.object({ reviewIds: ReviewIds, categoryId: Uuid.optional(), notes: Notes.optional() }).strict();
export const BatchRejectInput = z.object({ reviewIds: ReviewIds, notes: Notes }).strict();
export const BatchReviewItemResult = z.object({ reviewId: UuidValue, success: z.boolean(), error: Text(ERROR_MESSAGE_MAX).optional() });
export const BatchReviewResult = z.object({
  results: z.array(BatchReviewItemResult).max(MAX_REVIEW_BATCH),
  succeeded: SmallCount.max(MAX_REVIEW_BATCH),
  failed: SmallCount.max(MAX_REVIEW_BATCH),
});

export const ListReviewsQuery = z.object({
  workspaceId: IntId.optional(),
  connectionId: Uuid.optional(),
  status: ReviewStatus.optional(),
  reviewerId: Uuid.optional(),
  entryId: BigIntId.optional(),
  ...PageQuery,
});

/* ---------- summaries ---------- */

export const ExceptionSummary = z.object({
  failedSyncs: CountValue,
  staleSyncs: CountValue,
  conflictingSyncs: CountValue,
  unreconciledEntries: CountValue,
  requestedDocuments: CountValue,
  rejectedReviews: CountValue,
  changesRequestedReviews: CountValue,
});

export const Dashboard = z.object({
  reviewStats: z.object({
    queued: CountValue,
    inReview: CountValue,
    approved: CountValue,
    rejected: CountValue,
    changesRequested: CountValue,
  }),
  syncStats: z.object({
    pending: CountValue,
    synced: CountValue,
    failed: CountValue,
    stale: CountValue,
    conflict: CountValue,
  }),
  connections: z.array(ConnectionObject).describe('every connection of the workspace (not paged)'),
  exceptionSummary: ExceptionSummary,
});

export type ConnectionObject = z.infer<typeof ConnectionObject>;
export type CreateConnectionInput = z.infer<typeof CreateConnectionInput>;
export type UpdateConnectionInput = z.infer<typeof UpdateConnectionInput>;
export type SyncMode = z.infer<typeof SyncMode>;
export type AccountType = z.infer<typeof AccountType>;
export type CategoryObject = z.infer<typeof CategoryObject>;
export type CreateCategoryInput = z.infer<typeof CreateCategoryInput>;
export type UpdateCategoryInput = z.infer<typeof UpdateCategoryInput>;
export type PartyMappingObject = z.infer<typeof PartyMappingObject>;
export type CreatePartyMappingInput = z.infer<typeof CreatePartyMappingInput>;
export type BatchPartyMappingsInput = z.infer<typeof BatchPartyMappingsInput>;
export type TaxMappingObject = z.infer<typeof TaxMappingObject>;
export type CreateTaxMappingInput = z.infer<typeof CreateTaxMappingInput>;
export type ProjectRoute = z.infer<typeof ProjectRoute>;
export type ReviewStatus = z.infer<typeof ReviewStatus>;
export type ReviewObject = z.infer<typeof ReviewObject>;
export type BatchReviewResult = z.infer<typeof BatchReviewResult>;
export type ListReviewsQuery = z.infer<typeof ListReviewsQuery>;
export type ExceptionSummary = z.infer<typeof ExceptionSummary>;
export type Dashboard = z.infer<typeof Dashboard>;
