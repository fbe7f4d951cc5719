import { Router, type Request, type Response } from 'express';
import { IngestRequest, IngestResponse, MAX_INGEST_ENTRIES } from '../../../shared/contracts/integrations.js';
import { sendError } from '../../http/errors.js';
import { documentExpressPath } from '../../http/express-paths.js';
import { authenticateApiKey, takeIngestSlot } from './ingest-auth.js';
import { ingestEntries } from './ingest.service.js';
import { recordIngestItems } from '../../lib/metrics.js';
import { assertNoQueryParameters } from '../../lib/query-parameters.js';

export const INGEST_PATH = '/api/v1/ingest';

/** POST /api/v1/ingest: API key (401) → rate limit (429) → batch (400 for the envelope, per-item results otherwise). */
async function ingest(req: Request, res: Response): Promise<void> {
  const caller = await authenticateApiKey(req.get('X-API-Key'));
  assertNoQueryParameters(req.query); // CONTRACT §1, after the key check
  await takeIngestSlot(caller);
  const result = await ingestEntries(caller, req.body);
  recordIngestItems(result);
  res.status(200).json(result);
}

export function ingestRoutes(): Router {
  const r = Router();
  r.post(INGEST_PATH, (req, res) => {
    ingest(req, res).catch((err) => sendError(res, err));
  });
  return r;
}

documentExpressPath(INGEST_PATH, {
  post: {
    operationId: 'ingestEntries',
    tags: ['Ingest'],
    summary: `Ingest a batch of 1..${MAX_INGEST_ENTRIES} entries with an integration API key`,
    description:
      'Each item is validated and processed on its own and gets a result in request order: CREATED, DUPLICATE ' +
      '(the integration already ingested this externalId, also earlier in the same batch) or ERROR (with a message: ' +
      "invalid item, unknown project, project outside the integration's scope, date in a closed period, unknown party id). " +
      'Parties and tags named by `name` are found (case-insensitive) or created. Entries are created PENDING with the ' +
      "integration's entry source, events with actorType INTEGRATION, and the review auto-queue rules. " +
      'A body that is not `{entries: [1..1000 items]}` is a 400. Rate limit: INGEST_RATE_PER_MINUTE requests per minute per key (429 with Retry-After).',
    security: [{ ApiKey: [] }],
    requestBody: { required: true, content: { 'application/json': { schema: IngestRequest } } },
    responses: {
      '200': { description: 'Per-item results', content: { 'application/json': { schema: IngestResponse } } },
      '400': { description: 'Body is not {entries: [1..1000 items]}' },
      '401': { description: 'Missing, invalid, revoked or rotated API key' },
      '413': { description: 'Body over the ingest limit (10 MiB)' },
      '429': { description: 'Rate limited; see Retry-After' },
    },
  },
});
