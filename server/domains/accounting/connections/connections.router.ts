import { z } from 'zod/v4';
import { Success, WorkspaceQuery } from '../../../../shared/contracts/common.js';
import {
  BackfillResult,
  ConnectionIdInput,
  ConnectionObject,
  CreateConnectionInput,
  UpdateConnectionInput,
} from '../../../../shared/contracts/accounting.js';
import { router } from '../../../trpc/init.js';
import { op, permitted } from '../../../trpc/procedures.js';
import { backfillReviews } from '../reviews/reviews.service.js';
import * as connections from './connections.service.js';

const TAG = 'Accounting connections';
const can = permitted('accounting.manage');
const SECRETS =
  '`credentials` and `config.webhookSecret` are write-only: stored encrypted (AES-256-GCM), never returned; `hasWebhookSecret` tells whether a webhook secret is set.';

export const connectionsRouter = router({
  list: can
    .meta(op('GET', '/accounting/connections', 'listConnections', TAG, 'List the accounting connections of a workspace', [403]))
    .input(WorkspaceQuery)
    .output(z.array(ConnectionObject))
    .query(({ ctx, input }) => connections.listConnections(ctx.actor, input.workspaceId)),
  create: can
    .meta(
      op('POST', '/accounting/connections', 'createConnection', TAG, 'Create an accounting connection', [403], {
        description: `providerType MANUAL, QUICKBOOKS or a custom ^[A-Z][A-Z0-9_]{1,49}$ type (needs config.baseUrl). ${SECRETS}`,
      }),
    )
    .input(CreateConnectionInput)
    .output(ConnectionObject)
    .mutation(({ ctx, input }) => connections.createConnection(ctx.actor, input)),
  get: can
    .meta(op('GET', '/accounting/connections/{id}', 'getConnection', TAG, 'Get an accounting connection (credentials omitted)', [403, 404]))
    .input(ConnectionIdInput)
    .output(ConnectionObject)
    .query(({ ctx, input }) => connections.getConnection(ctx.actor, input.id)),
  update: can
    .meta(
      op('PATCH', '/accounting/connections/{id}', 'updateConnection', TAG, 'Update an accounting connection', [403, 404], {
        description: `Given credentials replace the stored ones; config replaces the stored config, except config.webhookSecret (a string sets it, null clears it, absent keeps it). ${SECRETS}`,
      }),
    )
    .input(UpdateConnectionInput)
    .output(ConnectionObject)
    .mutation(({ ctx, input }) => connections.updateConnection(ctx.actor, input)),
  deactivate: can
    .meta(op('DELETE', '/accounting/connections/{id}', 'deactivateConnection', TAG, 'Deactivate an accounting connection', [403, 404]))
    .input(ConnectionIdInput)
    .output(Success)
    .mutation(({ ctx, input }) => connections.deactivateConnection(ctx.actor, input.id)),
  backfillReviews: can
    .meta(
      op(
        'POST',
        '/accounting/connections/{id}/backfill-reviews',
        'backfillReviews',
        TAG,
        'Queue a review for every non-voided entry of the connection that has none',
        [403, 404, 409],
      ),
    )
    .input(ConnectionIdInput)
    .output(BackfillResult)
    .mutation(({ ctx, input }) => backfillReviews(ctx.actor, input.id)),
});
