import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod/v4';
import { badRequest, parseInput } from '../../../lib/errors.js';
import { runtime } from '../../../runtime.js';
import { sendError } from '../../../http/errors.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../../http/request-context.js';
import { documentExpressPath } from '../../../http/express-paths.js';
import { Uuid } from '../../../../shared/contracts/common.js';
import { WebhookBody, WebhookResult } from '../../../../shared/contracts/sync.js';
import { handleWebhook } from './webhook-actions.js';
import { assertProviderSignature, assertWebhookSecret, webhookConnection } from './webhook-auth.js';
import { assertNoQueryParameters } from '../../../lib/query-parameters.js';

export const WEBHOOK_PREFIX = '/webhooks/accounting';

/**
 * The raw body of a webhook, kept byte for byte for the provider signature. Mounted in app.ts on
 * WEBHOOK_PREFIX before the global JSON parser (which then leaves the request alone); the bytes
 * go to res.locals so that the generic body middlewares see no body to inspect.
 */
export function webhookRawBody(): RequestHandler[] {
  return [
    express.raw({ type: () => true, limit: runtime().config.BODY_LIMIT_BYTES }),
    (req, res, next) => {
      res.locals.webhookRawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      req.body = undefined;
      next();
    },
  ];
}

function parseBody(raw: Buffer): WebhookBody {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('Malformed JSON body');
  }
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) throw badRequest(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  if (JSON.stringify(value).includes('\\u0000')) throw badRequest('Text must not contain NUL characters');
  return parseInput(WebhookBody, value);
}

/** POST /webhooks/accounting/{connectionId}: the checks of CONTRACT §10 in order, then the action. */
async function receive(req: Request, res: Response): Promise<void> {
  const connection = await webhookConnection(String(req.params.connectionId));
  assertWebhookSecret(connection, req.get('X-Webhook-Secret'));
  const raw: Buffer = res.locals.webhookRawBody ?? Buffer.alloc(0);
  assertProviderSignature(connection, req.get('intuit-signature'), raw);
  assertNoQueryParameters(req.query); // CONTRACT §1, after the credential checks
  res.status(200).json(await handleWebhook(connection, parseBody(raw)));
}

export function webhookRoutes(): Router {
  const r = Router();
  r.post(`${WEBHOOK_PREFIX}/:connectionId`, (req, res) => {
    receive(req, res).catch((err) => sendError(res, err));
  });
  return r;
}

documentExpressPath(`${WEBHOOK_PREFIX}/{connectionId}`, {
  post: {
    operationId: 'receiveAccountingWebhook',
    tags: ['Accounting webhooks'],
    summary: 'Receive an event from the accounting system of a connection',
    description:
      'No bearer token. Checks, in this order and before any action: unknown or inactive connection → 404; ' +
      '`config.webhookSecret` set and `X-Webhook-Secret` missing or different → 401; QUICKBOOKS with ' +
      '`credentials.webhookVerifierToken` and `intuit-signature` not base64(HMAC-SHA256(verifierToken, raw body)) → 401. ' +
      'The entry is named by `entryId` or by the `externalId` of its sync record on this connection (another ' +
      'workspace’s entry → 404). A repeated `eventId` is acknowledged with `{received: true, duplicate: true}` and does ' +
      'nothing. ENTRY_APPROVED → COMPLETED, ENTRY_REJECTED → REJECTED (reason, default "Rejected in the accounting system"), ' +
      'ENTRY_VOIDED → VOIDED (409 in a closed period), DOCUMENT_REQUESTED → a REQUESTED document (`documentName` required, ' +
      '`documentType` default BASIS), ENTRY_UPDATED → an ENTRY_UPDATED event keeping `changes`. Status changes bypass the ' +
      'status table except from VOIDED/CANCELLED (409). Events: actorType WEBHOOK, actorId the connection id.',
    // the secret is required only when the connection has one (CONTRACT §10), hence the empty alternative
    security: [{ WebhookSecret: [] }, {}],
    requestParams: {
      path: z.object({ connectionId: Uuid }),
      header: z.object({
        'intuit-signature': z
          .string()
          .regex(/^[A-Za-z0-9+/]{43}=$/)
          .meta({ maxLength: 44 })
          .optional()
          .describe('QUICKBOOKS: base64(HMAC-SHA256(webhookVerifierToken, raw body))'),
      }),
    },
    requestBody: { required: true, content: { 'application/json': { schema: WebhookBody } } },
    responses: {
      '200': { description: 'Processed, or acknowledged as a duplicate', content: { 'application/json': { schema: WebhookResult } } },
      '400': { description: 'Malformed body, or no entryId/externalId' },
      '401': { description: 'Webhook secret or signature missing or wrong' },
      '404': { description: 'Unknown or inactive connection, or entry not found in its workspace' },
      '409': { description: 'Entry VOIDED or CANCELLED, or (ENTRY_VOIDED) dated in a closed period' },
      '413': { description: 'Body larger than BODY_LIMIT_BYTES' },
    },
  },
});
