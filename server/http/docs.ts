import express, { Router } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildOpenApiDocument } from '../trpc/openapi.js';

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Finance Entries Service — API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  tryItOutEnabled: true,
  displayOperationId: true,
  // tags start collapsed: with every one of ~140 operations expanded at once, Swagger UI stops
  // rendering part of the page (seen with swagger-ui-dist 5.35 past ~130 operations)
  docExpansion: 'none',
});`;

/**
 * GET /docs: an interactive API reference (Swagger UI, served locally, no CDN); GET /openapi-3.0.json:
 * the same routers as /openapi.json rendered as OAS 3.0.3 (identical to the committed
 * openapi-3.0.json), for tools that read only 3.0. Built on its first request.
 */
export function docsRouter(): Router {
  const r = Router();
  let openapi30: string | undefined;
  r.get('/openapi-3.0.json', (_req, res) => {
    openapi30 ??= JSON.stringify(buildOpenApiDocument('3.0.3'), null, 2) + '\n';
    res.type('application/json').send(openapi30);
  });
  r.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  r.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  r.use('/docs/assets', express.static(swaggerDir, { index: false, maxAge: '1h' }));
  return r;
}
