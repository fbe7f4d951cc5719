import { Router } from 'express';
import { entriesExportRoutes } from '../domains/entries/index.js';
import { ingestRoutes } from '../domains/integrations/index.js';
import { reportsPdfRoutes } from '../domains/reports/index.js';
import { documentRoutes } from '../domains/documents/index.js';
import { bankingRoutes } from '../domains/banking/index.js';
import { fxRoutes } from '../domains/fx/index.js';
import { webhookRoutes } from '../domains/accounting/index.js';
import { journalExportRoutes } from '../domains/books/index.js';

/**
 * Domain express routes (uploads, downloads, CSV/PDF streams, webhooks, ingest) register here.
 * Importing this module also registers their OpenAPI path objects.
 */
export const expressRoutes = Router();
expressRoutes.use(entriesExportRoutes());
expressRoutes.use(ingestRoutes());
expressRoutes.use(reportsPdfRoutes());
expressRoutes.use(documentRoutes());
expressRoutes.use(webhookRoutes());
expressRoutes.use(bankingRoutes());
expressRoutes.use(fxRoutes());
expressRoutes.use(journalExportRoutes());
