import express, { type Express } from 'express';
import helmet from 'helmet';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { createOpenApiExpressMiddleware } from 'trpc-to-openapi';
import { appRouter } from './trpc/router.js';
import { keepJsonBodiesStrict } from './trpc/strict-json-bodies.js';
import { wireDomainReactions } from './domains/reactions.js';
import { contextFactory } from './trpc/context.js';
import { buildOpenApiDocument } from './trpc/openapi.js';
import { expressRoutes } from './http/express-routes.js';
import { docsRouter } from './http/docs.js';
import { requestContext, emptyBodyIsJson, rejectDeepJson, rejectNulCharacters } from './http/request-context.js';
import { idempotency } from './http/idempotency.js';
import { expressErrorHandler } from './http/errors.js';
import { metricsRouter } from './http/metrics.js';
import { mcpRouter } from './mcp/mcp.http.js';
import { routeTemplateOf } from './http/route-templates.js';
import { WEBHOOK_PREFIX, webhookRawBody } from './domains/accounting/webhooks/webhook.http.js';
import { INGEST_PATH } from './domains/integrations/ingest.http.js';
import { jsonBodiesOnly } from './http/media-type.js';
import { db } from './db/database.js';
import { pendingMigrations } from './db/migrate.js';
import { runtime } from './runtime.js';
import { demoReceiverUrl, demoWebhookReceiver } from './seed/demo-webhook-receiver.js';

/** Builds the whole HTTP surface without listening, so tests can mount it. */
export function createApp(): Express {
  const { config } = runtime();
  wireDomainReactions();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use(requestContext);
  app.use(metricsRouter(routeTemplateOf)); // request counts and latency by route; GET /metrics (public, see README)
  app.use(helmet({ crossOriginEmbedderPolicy: false }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await db().query('SELECT 1');
      const pending = await pendingMigrations(db());
      if (pending.length > 0) return res.status(503).json({ status: 'migrations pending' });
      res.json({ status: 'ok' });
    } catch {
      res.status(503).json({ status: 'database unavailable' });
    }
  });
  const openapi = JSON.stringify(buildOpenApiDocument(), null, 2) + '\n';
  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(openapi);
  });
  app.use(docsRouter());
  if (demoReceiverUrl(config)) app.use(demoWebhookReceiver()); // the demo's loopback webhook receiver (embedded demo only)

  app.use(INGEST_PATH, jsonBodiesOnly, express.json({ limit: config.INGEST_BODY_LIMIT_BYTES }));
  app.use(WEBHOOK_PREFIX, jsonBodiesOnly, webhookRawBody()); // raw bytes for the provider signature
  app.use(express.json({ limit: config.BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'] }));
  app.use(emptyBodyIsJson);
  app.use(rejectDeepJson);
  app.use(rejectNulCharacters);
  app.use(mcpRouter()); // agents (CONTRACT §20); before idempotency: a confirmed write is made once by its confirmToken
  app.use(idempotency);
  app.use(expressRoutes);

  const onError = ({ error }: { error: { code: string } }) => void error;
  app.use('/trpc', createExpressMiddleware({ router: appRouter, createContext: contextFactory('trpc'), onError }));
  keepJsonBodiesStrict(appRouter);
  app.use(
    createOpenApiExpressMiddleware({ router: appRouter, createContext: contextFactory('rest'), maxBodySize: config.BODY_LIMIT_BYTES }),
  );
  app.use(expressErrorHandler);
  return app;
}
