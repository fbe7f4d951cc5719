import { Router, type Request, type Response } from 'express';
import { parseInput } from '../../lib/errors.js';
import { ImportFxRatesForm, ImportFxRatesQuery, ImportFxRatesResult } from '../../../shared/contracts/fx.js';
import { guardedRoute } from '../../http/guarded-route.js';
import { documentExpressPath } from '../../http/express-paths.js';
import { scope, type Actor } from '../../lib/scope.js';
import { importRates } from './import.service.js';
import { receiveRateFile } from './rate-upload.js';

export const IMPORT_PATH = '/fx-rates/import';

/** POST /fx-rates/import?workspaceId= (fx.manage; multipart `file`) → {imported, updated}. */
async function importFile(req: Request, res: Response, actor: Actor): Promise<void> {
  const { workspaceId } = parseInput(ImportFxRatesQuery, req.query);
  scope.requireWorkspaceMember(actor, workspaceId); // before the body is read
  const bytes = await receiveRateFile(req, res);
  res.status(200).json(await importRates(actor, workspaceId, bytes));
}

export function fxRoutes(): Router {
  const r = Router();
  r.post(IMPORT_PATH, guardedRoute('importFxRates', { permission: 'fx.manage' }, importFile));
  return r;
}

documentExpressPath(IMPORT_PATH, {
  post: {
    operationId: 'importFxRates',
    tags: ['FX rates'],
    summary: 'Import rates from a CSV date,currency,rate or an ECB eurofxref XML file (all or nothing)',
    description:
      'CSV: `date,currency,rate` lines (an optional header line of those names), `rate` being the value of one unit of ' +
      '`currency` in the base currency. ECB XML (eurofxref daily or historical): rates per EUR, so accepted only for an EUR ' +
      'workspace; each is inverted exactly and rounded once, half to even, to at most 10 decimals and 15 significant digits. ' +
      'Rates of the same currency and date are replaced. Any invalid line refuses the whole file: 400 with each problem and ' +
      'its line number in `issues`. Other form fields are ignored. Needs fx.manage.',
    security: [{ Authorization: [] }],
    requestParams: { query: ImportFxRatesQuery },
    requestBody: { required: true, content: { 'multipart/form-data': { schema: ImportFxRatesForm } } },
    responses: {
      '200': {
        description: 'How many rates were new and how many replaced',
        content: { 'application/json': { schema: ImportFxRatesResult } },
      },
      '400': { description: 'No file part, invalid lines (see issues), ECB file for a non-EUR workspace' },
      '401': { description: 'Not authenticated' },
      '403': { description: 'Missing fx.manage, or not a member of workspaceId' },
      '413': { description: 'File larger than UPLOAD_LIMIT_BYTES' },
      '415': { description: 'Body not multipart/form-data' },
    },
  },
});
