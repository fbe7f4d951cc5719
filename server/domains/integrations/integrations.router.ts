import { z } from 'zod/v4';
import { Success, WorkspaceQuery } from '../../../shared/contracts/common.js';
import {
  CreateIntegrationInput,
  IntegrationIdInput,
  IntegrationObject,
  IntegrationWithKey,
} from '../../../shared/contracts/integrations.js';
import { router } from '../../trpc/init.js';
import { op, permitted } from '../../trpc/procedures.js';
import * as integrations from './integrations.service.js';

const TAG = 'Integrations';
const can = permitted('integration.manage');

export const integrationsRouter = router({
  list: can
    .meta(op('GET', '/integrations', 'listIntegrations', TAG, 'List the integrations of a workspace (never their keys)', [403]))
    .input(WorkspaceQuery)
    .output(z.array(IntegrationObject))
    .query(({ ctx, input }) => integrations.listIntegrations(ctx.actor, input.workspaceId)),
  create: can
    .meta(op('POST', '/integrations', 'createIntegration', TAG, 'Create an integration; its API key is shown only in this response', [403]))
    .input(CreateIntegrationInput)
    .output(IntegrationWithKey)
    .mutation(({ ctx, input }) => integrations.createIntegration(ctx.actor, input)),
  rotateKey: can
    .meta(
      op(
        'POST',
        '/integrations/{id}/rotate-key',
        'rotateIntegrationKey',
        TAG,
        'Issue a new API key; the old one stops at once',
        [403, 404, 409],
      ),
    )
    .input(IntegrationIdInput)
    .output(IntegrationWithKey)
    .mutation(({ ctx, input }) => integrations.rotateIntegrationKey(ctx.actor, input.id)),
  revoke: can
    .meta(op('DELETE', '/integrations/{id}', 'revokeIntegration', TAG, 'Revoke an integration and its API key', [403, 404, 409]))
    .input(IntegrationIdInput)
    .output(Success)
    .mutation(({ ctx, input }) => integrations.revokeIntegration(ctx.actor, input.id)),
});
