import { z } from 'zod/v4';
import {
  BigIntId,
  BigIntIdValue,
  CountValue,
  CurrencyValue,
  EXTERNAL_ID_MAX,
  IntId,
  IsoDate,
  NAME_MAX,
  NonBlankText,
  PageQuery,
  RecordKey,
  SmallCount,
  Text,
  TEXT_MAX,
  Timestamp,
  Uuid,
} from './common.js';
import { ProviderType } from './accounting.js';
import { AmountCents, EntryType } from './entries.js';
import { DOCUMENT_NAME_MAX, DocumentType } from './documents.js';

/* ---------- sync records (CONTRACT §9) ---------- */

export const SYNC_STATUSES = ['PENDING', 'SYNCED', 'FAILED', 'STALE', 'CONFLICT'] as const;
export const SyncStatus = z.enum(SYNC_STATUSES);

/** sync_records.last_error CHECK (length <= 4000). */
const LAST_ERROR_MAX = 4000;

export const SyncObject = z.object({
  id: Uuid,
  connectionId: Uuid,
  entryId: BigIntIdValue,
  status: SyncStatus,
  externalId: Text(EXTERNAL_ID_MAX).nullable(),
  externalVersion: Text(255).nullable(),
  lastError: Text(LAST_ERROR_MAX).nullable(),
  attempts: CountValue.describe('push attempts made for this record (successful or not)'),
  lastAttemptAt: Timestamp.nullable(),
  syncedAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SyncListRow = SyncObject.extend({
  connection: z.object({ id: Uuid, name: Text(NAME_MAX), providerType: ProviderType }),
  entry: z.object({
    id: BigIntIdValue,
    entryType: EntryType,
    entryStatus: Text(20).describe('the entry status (PENDING … VOIDED)'),
    amountCents: AmountCents,
    baseCurrency: CurrencyValue,
    entryDate: IsoDate,
    description: Text(TEXT_MAX).nullable(),
  }),
});

export const PushInput = z
  .object({
    entryId: BigIntId,
    connectionId: Uuid,
    dryRun: z.boolean().optional().describe('true: return the exact request the push would send, without sending it or changing anything'),
  })
  .strict();

/**
 * Documented bound of a previewed URL (not checked: the URL is built by the server): the base URL
 * (config.baseUrl <= 2048 characters, or QUICKBOOKS_API_BASE_URL), then path segments from the
 * external id (<= 255) or the QuickBooks realm id (credentials <= 16 KiB of JSON), percent-encoded.
 */
const URL_MAX = 64 * 1024;

/** The request a push would make to the accounting system. */
export const PushRequest = z.object({
  method: Text(10).nullable().describe('null for the MANUAL provider (no external system)'),
  url: z.string().meta({ maxLength: URL_MAX }).nullable(),
  body: z.unknown(),
});

/** What a push would send (`dryRun: true`): nothing is sent, nothing is stored. */
export const PushPreview = z.object({
  dryRun: z.literal(true),
  operation: z.enum(['CREATE', 'UPDATE', 'NONE']).describe('NONE: the entry is SYNCED and unchanged; a push would do nothing'),
  request: PushRequest.nullable(),
  sync: SyncObject.nullable().describe('the current sync record, null when none exists yet'),
});

export const PushResult = z.union([SyncObject, PushPreview]);

export const PullInput = z
  .object({
    connectionId: Uuid,
    since: z.iso
      .datetime({ offset: true })
      .meta({ maxLength: 40 })
      .optional()
      .describe("changes since this instant; default: the connection's lastPulledAt (all when never pulled)"),
  })
  .strict();
export const PullResult = z.object({
  pulled: CountValue.describe('external records the provider reported changed since `since`'),
  updated: CountValue.describe('local entries updated from their external record'),
  conflicts: CountValue.describe('records found in conflict (local STALE or FAILED update, external changed)'),
});

export const ConnectionBody = z.object({ connectionId: Uuid }).strict();
export const ImportResult = z.object({ imported: CountValue, updated: CountValue });

export const Resolution = z.enum(['KEEP_LOCAL', 'KEEP_EXTERNAL']);
export const ResolveConflictInput = z.object({ syncId: Uuid, resolution: Resolution }).strict();

export const EntrySyncsInput = z.object({ entryId: BigIntId });
export const PendingSyncsInput = z.object({ connectionId: Uuid });
export const ListSyncsQuery = z.object({ workspaceId: IntId, status: SyncStatus.optional(), ...PageQuery });
export const SyncIdInput = z.object({ id: Uuid });
export const RetryResult = z.object({ success: z.boolean() });

export const MAX_RETRY_BATCH = 100;
export const RetryBatchInput = z.object({ syncIds: z.array(Uuid).min(1).max(MAX_RETRY_BATCH) }).strict();
export const RetryBatchResult = z.object({
  success: z.boolean().describe('true when every record was retried successfully'),
  retried: SmallCount.max(MAX_RETRY_BATCH).describe('records that ended SYNCED'),
  failed: SmallCount.max(MAX_RETRY_BATCH).describe(
    'records that did not (not found, not retryable, refused, push failed, conflict unchanged)',
  ),
});

/* ---------- webhooks (CONTRACT §10) ---------- */

export const WEBHOOK_ACTIONS = ['ENTRY_APPROVED', 'ENTRY_REJECTED', 'ENTRY_VOIDED', 'DOCUMENT_REQUESTED', 'ENTRY_UPDATED'] as const;
export const WebhookAction = z.enum(WEBHOOK_ACTIONS);

export const WebhookBody = z
  .object({
    eventId: NonBlankText(EXTERNAL_ID_MAX),
    action: WebhookAction,
    entryId: BigIntId.optional(),
    externalId: NonBlankText(EXTERNAL_ID_MAX).optional(),
    reason: NonBlankText(TEXT_MAX).optional(),
    documentName: NonBlankText(DOCUMENT_NAME_MAX).optional(),
    documentType: DocumentType.optional(),
    comment: z.string().trim().max(TEXT_MAX).optional(),
    changes: z.record(RecordKey, z.unknown()).optional(),
  })
  .strict();

export const WebhookApplied = z.object({ received: z.literal(true), action: WebhookAction, entryId: BigIntIdValue });
export const WebhookDuplicate = z.object({ received: z.literal(true), duplicate: z.literal(true) });
export const WebhookResult = z.union([WebhookApplied, WebhookDuplicate]);

export type SyncStatus = z.infer<typeof SyncStatus>;
export type SyncObject = z.infer<typeof SyncObject>;
export type SyncListRow = z.infer<typeof SyncListRow>;
export type PushInput = z.infer<typeof PushInput>;
export type PushPreview = z.infer<typeof PushPreview>;
export type PullResult = z.infer<typeof PullResult>;
export type ImportResult = z.infer<typeof ImportResult>;
export type Resolution = z.infer<typeof Resolution>;
export type RetryBatchResult = z.infer<typeof RetryBatchResult>;
export type WebhookBody = z.infer<typeof WebhookBody>;
export type WebhookAction = z.infer<typeof WebhookAction>;
