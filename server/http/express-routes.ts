import { Router } from 'express';
import { entriesExportRoutes } from '../domains/entries/export.http.js';

/**
 * Domain express routes (uploads, downloads, CSV/PDF streams, webhooks, ingest) register here.
 * Importing this module also registers their OpenAPI path objects.
 */
export const expressRoutes = Router();
expressRoutes.use(entriesExportRoutes());
