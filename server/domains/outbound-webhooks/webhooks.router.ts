import { z } from 'zod/v4';
import { Success, WorkspaceQuery } from '../../../shared/contracts/common.js';
import {
  CreateWebhookEndpointInput,
  DeliveryPage,
  ListDeliveriesQuery,
  ListWebhookEventsQuery,
  ReplayInput,
  ReplayResult,
  RetryDeliveryInput,
  UpdateWebhookEndpointInput,
  WebhookDeliveryObject,
  WebhookEndpointIdInput,
  WebhookEndpointObject,
  WebhookEndpointWithSecret,
  WebhookEventPage,
} from '../../../shared/contracts/outbound-webhooks.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import * as deliveries from './deliveries.service.js';
import * as endpoints from './endpoints.service.js';
import { listEvents } from './feed.service.js';

const TAG = 'Webhooks';
const can = permitted('integration.manage');

/** Outbound webhooks (CONTRACT §15): endpoints need integration.manage and membership; the event feed, membership. */
export const webhooksRouter = router({
  listEndpoints: can
    .meta(
      op(
        'GET',
        '/webhook-endpoints',
        'listWebhookEndpoints',
        TAG,
        'List the webhook endpoints of a workspace (never their secrets)',
        [403],
      ),
    )
    .input(WorkspaceQuery)
    .output(z.array(WebhookEndpointObject))
    .query(({ ctx, input }) => endpoints.listEndpoints(ctx.actor, input.workspaceId)),
  createEndpoint: can
    .meta(
      op(
        'POST',
        '/webhook-endpoints',
        'createWebhookEndpoint',
        TAG,
        'Create a webhook endpoint; its signing secret is shown only in this response',
        [403],
      ),
    )
    .input(CreateWebhookEndpointInput)
    .output(WebhookEndpointWithSecret)
    .mutation(({ ctx, input }) => endpoints.createEndpoint(ctx.actor, input)),
  getEndpoint: can
    .meta(op('GET', '/webhook-endpoints/{id}', 'getWebhookEndpoint', TAG, 'Get a webhook endpoint', [403, 404]))
    .input(WebhookEndpointIdInput)
    .output(WebhookEndpointObject)
    .query(({ ctx, input }) => endpoints.getEndpoint(ctx.actor, input.id)),
  updateEndpoint: can
    .meta(
      op(
        'PATCH',
        '/webhook-endpoints/{id}',
        'updateWebhookEndpoint',
        TAG,
        'Change the url, event types, description or isActive of an endpoint',
        [403, 404],
      ),
    )
    .input(UpdateWebhookEndpointInput)
    .output(WebhookEndpointObject)
    .mutation(({ ctx, input }) => endpoints.updateEndpoint(ctx.actor, input)),
  deleteEndpoint: can
    .meta(
      op('DELETE', '/webhook-endpoints/{id}', 'deleteWebhookEndpoint', TAG, 'Delete an endpoint and its pending deliveries', [403, 404]),
    )
    .input(WebhookEndpointIdInput)
    .output(Success)
    .mutation(({ ctx, input }) => endpoints.deleteEndpoint(ctx.actor, input.id)),
  rotateSecret: can
    .meta(
      op(
        'POST',
        '/webhook-endpoints/{id}/rotate-secret',
        'rotateWebhookSecret',
        TAG,
        'Issue a new signing secret; the old one also signs for 24 hours',
        [403, 404],
      ),
    )
    .input(WebhookEndpointIdInput)
    .output(WebhookEndpointWithSecret)
    .mutation(({ ctx, input }) => endpoints.rotateSecret(ctx.actor, input.id)),
  listDeliveries: can
    .meta(
      op('GET', '/webhook-endpoints/{id}/deliveries', 'listWebhookDeliveries', TAG, "An endpoint's deliveries, newest first", [403, 404]),
    )
    .input(ListDeliveriesQuery)
    .output(DeliveryPage)
    .query(({ ctx, input }) => deliveries.listDeliveries(ctx.actor, input)),
  retryDelivery: can
    .meta(
      op(
        'POST',
        '/webhook-endpoints/{id}/deliveries/{deliveryId}/retry',
        'retryWebhookDelivery',
        TAG,
        'Re-send a delivery now (same webhook-id) and return it with the outcome',
        [403, 404, 409],
      ),
    )
    .input(RetryDeliveryInput)
    .output(WebhookDeliveryObject)
    .mutation(({ ctx, input }) => deliveries.retryDelivery(ctx.actor, input)),
  replay: can
    .meta(
      op(
        'POST',
        '/webhook-endpoints/{id}/replay',
        'replayWebhookEvents',
        TAG,
        'Queue again every event of a window the endpoint subscribes to',
        [403, 404, 409],
      ),
    )
    .input(ReplayInput)
    .output(ReplayResult)
    .mutation(({ ctx, input }) => deliveries.replay(ctx.actor, input)),
  testEndpoint: can
    .meta(
      op(
        'POST',
        '/webhook-endpoints/{id}/test',
        'testWebhookEndpoint',
        TAG,
        'Send a webhook.test event now and return its delivery',
        [403, 404],
      ),
    )
    .input(WebhookEndpointIdInput)
    .output(WebhookDeliveryObject)
    .mutation(({ ctx, input }) => deliveries.testEndpoint(ctx.actor, input.id)),
  listEvents: authedProcedure
    .meta(op('GET', '/webhook-events', 'listWebhookEvents', TAG, "The workspace's events, oldest first, for consumers that poll", [403]))
    .input(ListWebhookEventsQuery)
    .output(WebhookEventPage)
    .query(({ ctx, input }) => listEvents(ctx.actor, input)),
});
