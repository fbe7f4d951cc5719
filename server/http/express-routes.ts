import { Router } from 'express';
import { entriesExportRoutes } from '../domains/entries/export.http.js';
import { ingestRoutes } from '../domains/integrations/ingest.http.js';
import { reportsPdfRoutes } from '../domains/reports/pdf/export-pdf.http.js';
import { documentRoutes } from '../domains/documents/documents.http.js';
import { bankingRoutes } from '../domains/banking/index.js';
import { fxRoutes } from '../domains/fx/index.js';
import { webhookRoutes } from '../domains/accounting/webhooks/webhook.http.js';

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
