import { z } from 'zod/v4';
import { CountValue, IntId, IntIdValue, Page, PageQuery, RecordKey, SmallCount, Text, Timestamp, Uuid, UuidValue } from './common.js';

/** Outbound webhooks (CONTRACT §15): endpoints, events (the outbox and its feed), deliveries. */

export const WEBHOOK_EVENT_TYPES = [
  'entry.created',
  'entry.updated',
  'entry.status_changed',
  'entry.voided',
  'entry.refunded',
  'entry.reimbursed',
  'entry.corrected',
  'entry.reconciled',
  'entry.unreconciled',
  'document.uploaded',
  'document.requested',
  'document.approved',
  'document.rejected',
  'document.extracted',
  'document.attached',
  'review.queued',
  'review.approved',
  'review.rejected',
  'review.changes_requested',
  'sync.synced',
  'sync.failed',
  'sync.conflict',
  'period.closed',
  'period.reopened',
  'bank_statement.imported',
  'journal.posted',
  'budget.exceeded',
  'webhook.test',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

export const WEBHOOK_URL_MAX = 2000;
export const WEBHOOK_DESCRIPTION_MAX = 500;
export const DISABLED_REASON_MAX = 500;
export const DELIVERY_ERROR_MAX = 1000;

const WebhookUrl = z
  .url({ protocol: /^https?$/ })
  .max(WEBHOOK_URL_MAX)
  .describe('http or https; a host resolving to a loopback, private or link-local address is refused unless WEBHOOK_ALLOW_PRIVATE_HOSTS');
const EventTypes = z.array(WebhookEventType).max(WEBHOOK_EVENT_TYPES.length).describe('the event types sent to the endpoint; empty = all');
const Description = z.string().trim().max(WEBHOOK_DESCRIPTION_MAX);

export const WebhookEndpointObject = z.object({
  id: Uuid,
  workspaceId: IntIdValue,
  url: Text(WEBHOOK_URL_MAX),
  eventTypes: EventTypes,
  description: Text(WEBHOOK_DESCRIPTION_MAX).nullable(),
  isActive: z.boolean(),
  disabledReason: Text(DISABLED_REASON_MAX).nullable().describe('why the service disabled the endpoint (e.g. it answered 410)'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** `whsec_` + base64 of 32 random bytes. */
export const WebhookEndpointWithSecret = WebhookEndpointObject.extend({
  secret: z
    .string()
    .max(50)
    .meta({ pattern: '^whsec_[A-Za-z0-9+/]{43}=$' })
    .describe('The signing secret (Standard Webhooks); shown only in this response, stored encrypted'),
});

export const CreateWebhookEndpointInput = z
  .object({ workspaceId: IntId, url: WebhookUrl, eventTypes: EventTypes.optional(), description: Description.optional() })
  .strict();
export const UpdateWebhookEndpointInput = z
  .object({
    id: Uuid,
    url: WebhookUrl.optional(),
    eventTypes: EventTypes.optional(),
    description: Description.nullable().optional(),
    isActive: z.boolean().optional(),
  })
  .strict();
export const WebhookEndpointIdInput = z.object({ id: Uuid });

export const DeliveryStatus = z.enum(['PENDING', 'SUCCEEDED', 'FAILED']);
export const WebhookDeliveryObject = z.object({
  id: Uuid,
  endpointId: UuidValue,
  eventId: UuidValue,
  eventType: WebhookEventType,
  status: DeliveryStatus,
  attempts: SmallCount,
  lastStatusCode: z.number().int().min(0).max(999).nullable().describe('HTTP status of the last answer; null when none came'),
  lastError: Text(DELIVERY_ERROR_MAX).nullable(),
  lastAttemptAt: Timestamp.nullable(),
  nextAttemptAt: Timestamp.nullable().describe('when the next attempt is due (PENDING); null once SUCCEEDED or FAILED'),
  createdAt: Timestamp,
});
export const ListDeliveriesQuery = z.object({ id: Uuid, status: DeliveryStatus.optional(), ...PageQuery });
export const DeliveryPage = Page(WebhookDeliveryObject);
export const RetryDeliveryInput = z.object({ id: Uuid, deliveryId: Uuid });

const Instant = z.iso.datetime({ offset: true }).meta({ maxLength: 40 });
export const ReplayInput = z
  .object({
    id: Uuid,
    since: Instant.describe('events created at or after this instant'),
    until: Instant.optional().describe('and before this instant (default: now)'),
  })
  .strict()
  .refine((r) => !r.until || Date.parse(r.since) <= Date.parse(r.until), { message: 'since must not be after until', path: ['until'] });
export const ReplayResult = z.object({
  queued: CountValue.describe('deliveries queued, one per event of the window the endpoint subscribes to'),
});

export const WebhookEventObject = z.object({
  id: Uuid,
  type: WebhookEventType,
  workspaceId: IntIdValue,
  createdAt: Timestamp,
  data: z
    .record(RecordKey, z.unknown())
    .describe('`object`: the contract object after the change; `originalEntryId` for refunds, reimbursements and corrections'),
});
export const ListWebhookEventsQuery = z.object({
  workspaceId: IntId,
  type: WebhookEventType.optional(),
  since: Instant.optional().describe('events created at or after this instant'),
  ...PageQuery,
});
export const WebhookEventPage = Page(WebhookEventObject);

export type WebhookEndpointObject = z.infer<typeof WebhookEndpointObject>;
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;
export type CreateWebhookEndpointInput = z.infer<typeof CreateWebhookEndpointInput>;
export type UpdateWebhookEndpointInput = z.infer<typeof UpdateWebhookEndpointInput>;
export type WebhookDeliveryObject = z.infer<typeof WebhookDeliveryObject>;
export type ListDeliveriesQuery = z.infer<typeof ListDeliveriesQuery>;
export type ReplayInput = z.infer<typeof ReplayInput>;
export type WebhookEventObject = z.infer<typeof WebhookEventObject>;
export type ListWebhookEventsQuery = z.infer<typeof ListWebhookEventsQuery>;
