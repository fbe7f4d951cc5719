import { Router } from 'express';

/**
 * Domain express routes (uploads, downloads, CSV/PDF streams, webhooks, ingest) register here.
 * Importing this module also registers their OpenAPI path objects.
 */
export const expressRoutes = Router();
