/** Integrations (API-key ingest, CONTRACT §11): the public surface (DESIGN §2). */
export { integrationsRouter } from './integrations.router.js';
