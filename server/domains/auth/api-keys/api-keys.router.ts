import { z } from 'zod/v4';
import { ApiKeyObject, ApiKeyWithSecret, CreateApiKeyInput, RotateApiKeyInput } from '../../../../shared/contracts/api-keys.js';
import { Success, UuidPath, WorkspaceQuery } from '../../../../shared/contracts/common.js';
import { router } from '../../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../../trpc/procedures.js';
import * as keys from './api-keys.service.js';

const TAG = 'API keys';
const manage = permitted('apikey.manage');

export const apiKeysRouter = router({
  list: authedProcedure
    .meta(op('GET', '/api-keys', 'listApiKeys', TAG, 'The API keys of a workspace (never their secrets)', [403]))
    .input(WorkspaceQuery)
    .output(z.array(ApiKeyObject))
    .query(({ ctx, input }) => keys.listApiKeys(ctx.actor, input.workspaceId)),
  create: manage
    .meta(
      op('POST', '/api-keys', 'createApiKey', TAG, 'Create an API key for an app; its secret is shown only in this response', [403], {
        description:
          'Permissions must be held by the caller (403) and may not include user.*, workspace.create or apikey.manage (400). ' +
          'The key acts in its workspace only, and with projectIds in those projects only. Send it as `Authorization: Bearer <apiKey>`.',
      }),
    )
    .input(CreateApiKeyInput)
    .output(ApiKeyWithSecret)
    .mutation(({ ctx, input }) => keys.createApiKey(ctx.actor, input)),
  get: authedProcedure
    .meta(op('GET', '/api-keys/{id}', 'getApiKey', TAG, 'One API key (never its secret)', [404]))
    .input(UuidPath)
    .output(ApiKeyObject)
    .query(({ ctx, input }) => keys.getApiKey(ctx.actor, input.id)),
  revoke: manage
    .meta(op('DELETE', '/api-keys/{id}', 'revokeApiKey', TAG, 'Revoke an API key: its next call is a 401', [403, 404, 409]))
    .input(UuidPath)
    .output(Success)
    .mutation(({ ctx, input }) => keys.revokeApiKey(ctx.actor, input.id)),
  rotate: manage
    .meta(
      op(
        'POST',
        '/api-keys/{id}/rotate',
        'rotateApiKey',
        TAG,
        'A new secret for the key; the old one works for graceSeconds more',
        [403, 404, 409],
      ),
    )
    .input(RotateApiKeyInput)
    .output(ApiKeyWithSecret)
    .mutation(({ ctx, input }) => keys.rotateApiKey(ctx.actor, input)),
});
