import type { StatementObject } from './contracts.js';
import type { RouterOutputs } from './types.js';

type Entry = RouterOutputs['entries']['create'];
type Document = RouterOutputs['documents']['get'];
type Review = RouterOutputs['accountingReviews']['get'];
type Sync = RouterOutputs['accountingSync']['resolveConflict'];
type Period = RouterOutputs['periods']['get'];
type WebhookEndpoint = RouterOutputs['webhooks']['getEndpoint'];
type JournalTransaction = RouterOutputs['booksRead']['journalTransaction'];
/** CONTRACT §25: a budget line and period whose actual went past its budget. */
export type BudgetExceeded = { budgetId: string; lineIndex: number; period: string; budgetCents: number; actualCents: number };

/** What each event type carries (CONTRACT §15): `data.object`, and for some types more fields of `data`. */
export interface WebhookEventPayloads {
  'entry.created': { object: Entry };
  'entry.updated': { object: Entry };
  'entry.status_changed': { object: Entry; previousStatus: Entry['entryStatus'] };
  'entry.voided': { object: Entry; previousStatus: Entry['entryStatus'] };
  /** object: the new entry (the refund, reimbursement or correction). */
  'entry.refunded': { object: Entry; originalEntryId: number };
  'entry.reimbursed': { object: Entry; originalEntryId: number };
  'entry.corrected': { object: Entry; originalEntryId: number };
  'entry.reconciled': { object: Entry };
  'entry.unreconciled': { object: Entry };
  'document.uploaded': { object: Document };
  'document.requested': { object: Document };
  'document.approved': { object: Document };
  'document.rejected': { object: Document };
  /** A document's reading finished (§21): object is the document. */
  'document.extracted': { object: Document };
  /** An inbox document was attached to an entry (§21): object is the document. */
  'document.attached': { object: Document };
  'review.queued': { object: Review };
  'review.approved': { object: Review };
  'review.rejected': { object: Review };
  'review.changes_requested': { object: Review };
  'sync.synced': { object: Sync };
  'sync.failed': { object: Sync };
  'sync.conflict': { object: Sync };
  'period.closed': { object: Period };
  'period.reopened': { object: Period };
  'bank_statement.imported': { object: StatementObject };
  /** Once per budget line and period, when an entry took its actual past its budget (CONTRACT §25). */
  'budget.exceeded': { object: BudgetExceeded };
  /** A MANUAL journal or a bank account's OPENING transaction was posted to the books (CONTRACT §23). */
  'journal.posted': { object: JournalTransaction };
  /** Sent by `POST /webhook-endpoints/{id}/test`: object is the endpoint. */
  'webhook.test': { object: WebhookEndpoint };
}

export type WebhookEventType = keyof WebhookEventPayloads;

/** Every event type the service sends (the OpenAPI document's `webhooks`), e.g. for an endpoint's `eventTypes`. */
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
  'budget.exceeded',
  'journal.posted',
  'webhook.test',
] as const satisfies readonly WebhookEventType[];

/** A type with a payload but missing from the list does not compile. */
type Unlisted = Exclude<WebhookEventType, (typeof WEBHOOK_EVENT_TYPES)[number]>;
export const ALL_EVENT_TYPES_LISTED: [Unlisted] extends [never] ? true : Unlisted = true;

/**
 * A delivered event, discriminated by `type`: after `if (event.type === 'entry.refunded')`,
 * `event.data.object` is the entry and `event.data.originalEntryId` a number.
 */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = {
  [K in T]: { id: string; type: K; workspaceId: number; createdAt: string; data: WebhookEventPayloads[K] };
}[T];
