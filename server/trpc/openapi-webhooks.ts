import type { OpenAPIObject } from 'trpc-to-openapi';
import { INT32_MAX } from '../../shared/contracts/common.js';
import { WEBHOOK_EVENT_TYPES } from '../../shared/contracts/outbound-webhooks.js';

/**
 * CONTRACT §15's outbound events, as OAS 3.1 `webhooks`: one entry per event type, whose request
 * body is that type's event (`{id, type, workspaceId, createdAt, data: {object, …}}`) with `object`
 * the contract object after the change. The payloads are named components (`EntryCreatedEvent` …),
 * so a generated client gets a type for each.
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The contract object an event of this type carries, by the part of its name before the dot. */
const OBJECT_OF_PREFIX: Record<string, string> = {
  entry: 'Entry',
  document: 'Document',
  review: 'Review',
  sync: 'SyncRecord',
  period: 'Period',
  bank_statement: 'BankStatement',
  journal: 'JournalTransaction',
  budget: 'BudgetExceeded',
  webhook: 'WebhookEndpoint',
};

/** Objects only events carry (no operation returns them, so the document would not name them otherwise). */
const EVENT_ONLY_OBJECTS: Record<string, object> = {
  BudgetExceeded: {
    type: 'object',
    description: 'A budget line and period whose actual went past its budget (CONTRACT §25)',
    required: ['budgetId', 'lineIndex', 'period', 'budgetCents', 'actualCents'],
    properties: {
      budgetId: { type: 'string', format: 'uuid', maxLength: 36 },
      lineIndex: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX },
      period: { type: 'string', maxLength: 7, description: 'YYYY-MM, YYYY-Qn or YYYY' },
      budgetCents: { type: 'integer', format: 'int64', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      actualCents: { type: 'integer', format: 'int64', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    },
  },
};

const ENTRY_ID = { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };

/** Fields of `data` beside `object`, by event type. */
const EXTRA_DATA: Record<string, Record<string, { schema: object; required: boolean }>> = {
  'entry.refunded': { originalEntryId: { schema: { ...ENTRY_ID, description: 'the entry refunded' }, required: true } },
  'entry.reimbursed': { originalEntryId: { schema: { ...ENTRY_ID, description: 'the expense reimbursed' }, required: true } },
  'entry.corrected': {
    originalEntryId: { schema: { ...ENTRY_ID, description: 'the entry this one replaces (now VOIDED)' }, required: true },
  },
  'entry.status_changed': { previousStatus: { schema: ref('EntryStatus'), required: true } },
  'entry.voided': { previousStatus: { schema: ref('EntryStatus'), required: true } },
};

const WHAT: Record<string, string> = {
  'entry.created': 'An entry was created (by a user, an API key, an integration, a bank line or a document).',
  'entry.updated': 'An entry’s fields or tags were edited.',
  'entry.status_changed': 'An entry moved to another status (except VOIDED, which is `entry.voided`).',
  'entry.voided': 'An entry was voided (directly, by a correction, by a full refund or by a status change to VOIDED).',
  'entry.refunded': 'A refund was created: `object` is the new refund entry, `data.originalEntryId` the entry refunded.',
  'entry.reimbursed': 'A reimbursement was created: `object` is the new entry, `data.originalEntryId` the expense.',
  'entry.corrected': 'A correction was made: `object` is the replacement entry, `data.originalEntryId` the voided original.',
  'entry.reconciled': 'An entry was marked reconciled (by hand or by a bank match).',
  'entry.unreconciled': 'An entry’s reconciliation was undone (by hand, or its bank match was deleted or dissolved).',
  'document.uploaded': 'A document was uploaded to an entry (or a requested one was fulfilled).',
  'document.requested': 'A document was requested for an entry (a placeholder without a file).',
  'document.approved': 'A document was approved.',
  'document.rejected': 'A document was rejected, with its reason.',
  'review.queued': 'An entry was queued for accounting review.',
  'review.approved': 'A review was approved (its entry becomes COMPLETED).',
  'review.rejected': 'A review was rejected (its entry becomes REJECTED).',
  'review.changes_requested': 'A reviewer asked for changes (its entry goes back to PENDING).',
  'sync.synced': 'An entry was pushed to (or pulled from) the accounting system and is in step with it.',
  'sync.failed': 'A push failed; `lastError` says why.',
  'sync.conflict': 'The entry changed both here and in the accounting system; resolve the sync record.',
  'period.closed': 'An accounting period was closed: its entries are locked.',
  'period.reopened': 'A closed accounting period was reopened.',
  'bank_statement.imported': 'A bank statement was imported and stored.',
  'journal.posted':
    'A MANUAL journal or a bank account’s OPENING transaction was posted to the books (CONTRACT §23); `object` is the journal transaction.',
  'budget.exceeded':
    'An entry took a budget line’s actual past its budget in a period: sent once per line and period, from the transaction of that entry.',
  'webhook.test': 'Sent by `POST /webhook-endpoints/{id}/test` to that endpoint only; `object` is the endpoint.',
};

const componentName = (type: string) =>
  type
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('') + 'Event';

export function objectOfEventType(type: string): string {
  const object = OBJECT_OF_PREFIX[type.split('.')[0]!];
  if (!object) throw new Error(`openapi: no contract object known for webhook event type ${type} (add it to OBJECT_OF_PREFIX)`);
  return object;
}

function eventSchema(type: string): object {
  const extra = EXTRA_DATA[type] ?? {};
  return {
    type: 'object',
    description: WHAT[type] ?? `The \`${type}\` event.`,
    required: ['id', 'type', 'workspaceId', 'createdAt', 'data'],
    properties: {
      id: {
        type: 'string',
        format: 'uuid',
        maxLength: 36,
        description: 'the event id, also sent as `webhook-id`: the same on every retry',
      },
      type: { type: 'string', enum: [type] },
      workspaceId: { type: 'integer', format: 'int32', minimum: 1, maximum: INT32_MAX },
      createdAt: { type: 'string', format: 'date-time', maxLength: 30, description: 'when the change committed (ISO 8601 UTC)' },
      data: {
        type: 'object',
        required: ['object', ...Object.entries(extra).flatMap(([name, field]) => (field.required ? [name] : []))],
        properties: {
          object: { ...ref(objectOfEventType(type)) },
          ...Object.fromEntries(Object.entries(extra).map(([name, field]) => [name, field.schema])),
        },
      },
    },
  };
}

const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event id (the same on every retry): deduplicate by it, delivery is at least once',
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt; reject ones too far from your clock',
    schema: { type: 'string', pattern: '^[0-9]{1,12}$', maxLength: 12 },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<body>` keyed with the base64-decoded part of the ' +
      'endpoint secret after `whsec_` (Standard Webhooks); for 24 hours after a rotation a space and the signature with the old ' +
      'secret follow. Verify it with a Standard Webhooks library.',
    schema: { type: 'string', maxLength: 200, pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})?$' },
  },
];

/** Adds `webhooks` (OAS 3.1) and the event components; returns the component names, for the 3.0 rendition. */
export function addWebhooks(doc: OpenAPIObject, { asExtension = false } = {}): void {
  doc.components ??= {};
  const schemas = (doc.components.schemas ??= {}) as Record<string, object>;
  const webhooks: Record<string, object> = {};
  for (const [name, schema] of Object.entries(EVENT_ONLY_OBJECTS)) schemas[name] ??= schema;
  for (const type of WEBHOOK_EVENT_TYPES) {
    const name = componentName(type);
    schemas[name] = eventSchema(type);
    webhooks[type] = {
      post: {
        operationId: `on${name}`,
        summary: `${type} event`,
        description:
          `${WHAT[type] ?? ''} Sent as \`POST <endpoint url>\` to every active endpoint subscribed to \`${type}\` (CONTRACT §15).`.trim(),
        tags: ['Webhook events'],
        security: [],
        parameters: SIGNATURE_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: ref(name) } } },
        responses: {
          '200': { description: 'Any 2xx answer within WEBHOOK_TIMEOUT_MS (10 s) acknowledges the event' },
          '410': { description: 'Gone: the service disables the endpoint at once (`isActive: false`, `disabledReason`)' },
          '429': { description: 'Retried after the schedule’s delay, at least `Retry-After`; so is 503 and any other answer' },
        },
      },
    };
  }
  (doc as unknown as Record<string, unknown>)[asExtension ? 'x-webhooks' : 'webhooks'] = webhooks;
  addSubscriptionCallbacks(doc, webhooks);
}

/**
 * The same events as `callbacks` of `POST /webhook-endpoints`, the operation that subscribes a URL: the
 * OAS way (3.0 and 3.1) to say that the service will call `{$request.body#/url}` back. Tools that read
 * callbacks but not `webhooks` (or read `webhooks` but keep only the components that paths reach, as
 * oapi-codegen v2.8 does with its default pruning) then still have every event component.
 */
function addSubscriptionCallbacks(doc: OpenAPIObject, webhooks: Record<string, object>): void {
  const subscribe = (doc.paths?.['/webhook-endpoints'] as Record<string, { callbacks?: object }> | undefined)?.post;
  if (!subscribe) throw new Error('openapi: POST /webhook-endpoints is missing, the events have no subscription to hang on');
  subscribe.callbacks = Object.fromEntries(
    Object.entries(webhooks).map(([type, item]) => {
      const { post } = item as { post: { operationId: string } };
      const operation = { ...post, operationId: post.operationId.replace(/^on/, 'deliver') };
      return [type, { '{$request.body#/url}': { post: operation } }];
    }),
  );
}
