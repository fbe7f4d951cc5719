import express, { type Express } from 'express';
import helmet from 'helmet';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { createOpenApiExpressMiddleware } from 'trpc-to-openapi';
import { appRouter } from './trpc/router.js';
import { keepJsonBodiesStrict } from './trpc/strict-json-bodies.js';
import { registerQueryInputFields } from './trpc/strict-query-input.js';
import { wireDomainReactions } from './domains/reactions.js';
import { contextFactory } from './trpc/context.js';
import { buildOpenApiDocument } from './trpc/openapi.js';
import { expressRoutes } from './http/express-routes.js';
import { docsRouter } from './http/docs.js';
import { requestContext, emptyBodyIsJson, rejectDeepJson, rejectNulCharacters } from './http/request-context.js';
import { idempotency } from './http/idempotency.js';
import { parseQueryString, rejectUnknownQueryParameters } from './http/query-string.js';
import { expressErrorHandler } from './http/errors.js';
import { metricsRouter } from './http/metrics.js';
import { mcpRouter } from './mcp/mcp.http.js';
import { routeTemplateOf } from './http/route-templates.js';
import { methodNotAllowed } from './http/method-not-allowed.js';
import { WEBHOOK_PREFIX, webhookRawBody } from './domains/accounting/index.js';
import { INGEST_PATH } from './domains/integrations/index.js';
import { jsonBodiesOnly } from './http/media-type.js';
import { QueryTypes } from 'sequelize';
import { db } from './db/database.js';
import { FAILOVER_RETRY_AFTER_SECONDS } from './db/unavailable.js';
import { pendingMigrations } from './db/migrate.js';
import { runtime } from './runtime.js';
import { demoReceiverUrl, demoWebhookReceiver } from './seed/demo-webhook-receiver.js';

/** How long GET /readyz waits for the database before it answers 503. */
const READYZ_TIMEOUT_MS = 3_000;

/** Builds the whole HTTP surface without listening, so tests can mount it. */
export function createApp(): Express {
  const { config } = runtime();
  wireDomainReactions();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQueryString);

  app.use(requestContext);
  app.use(metricsRouter(routeTemplateOf)); // request counts and latency by route; GET /metrics (public, see README)
  app.use(helmet({ crossOriginEmbedderPolicy: false }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // ready = the database takes writes (a primary, CONTRACT §22) and is migrated; bounded, never a hang
  app.get('/readyz', async (_req, res) => {
    const check = async () => {
      const [row] = await db().query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby', { type: QueryTypes.SELECT });
      if (row?.standby) return 'database read-only';
      return (await pendingMigrations(db())).length > 0 ? 'migrations pending' : 'ok';
    };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('database unavailable'), READYZ_TIMEOUT_MS)));
    const status = await Promise.race([check(), timeout]).catch(() => 'database unavailable');
    clearTimeout(timer);
    if (status !== 'ok') res.setHeader('Retry-After', String(FAILOVER_RETRY_AFTER_SECONDS));
    res.status(status === 'ok' ? 200 : 503).json({ status });
  });
  const openapi = JSON.stringify(buildOpenApiDocument(), null, 2) + '\n';
  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(openapi);
  });
  app.use(docsRouter());
  app.use(methodNotAllowed); // a documented path with a method it does not have: 405 with Allow
  app.use(rejectUnknownQueryParameters);
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
  registerQueryInputFields(appRouter);
  app.use(
    createOpenApiExpressMiddleware({ router: appRouter, createContext: contextFactory('rest'), maxBodySize: config.BODY_LIMIT_BYTES }),
  );
  app.use(expressErrorHandler);
  return app;
}
