/** Integrations (API-key ingest, CONTRACT §11): the public surface (DESIGN §2). */
export { integrationsRouter } from './integrations.router.js';
export { INGEST_PATH, ingestRoutes } from './ingest.http.js';
export { authenticateApiKey } from './ingest-auth.js';
export { hashApiKey } from './api-keys.js';
