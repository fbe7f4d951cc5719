import { Router, type Request, type Response } from 'express';
import multer from 'multer';
import { AppError, badRequest, parseInput } from '../../lib/errors.js';
import { recordStatementImport } from '../../lib/metrics.js';
import { runtime } from '../../runtime.js';
import { BankAccountPath, ImportFields, ImportForm, StatementObject } from '../../../shared/contracts/banking.js';
import type { Actor } from '../../lib/scope.js';
import { guardedRoute } from '../../http/guarded-route.js';
import { documentExpressPath } from '../../http/express-paths.js';
import { parseMultipart } from '../../http/multipart-body.js';
import { assertActive, loadAccount } from './account-rows.js';
import { importStatement } from './import.service.js';

/** multer, memory storage: one `file` part (UPLOAD_LIMIT_BYTES) and the two small text fields. */
const parserFor = (uploadLimit: number) =>
  multer({
    storage: multer.memoryStorage(),
    defParamCharset: 'utf8',
    limits: { fileSize: uploadLimit, files: 1, fields: 2, parts: 3, fieldSize: 10_000, fieldNameSize: 100, headerPairs: 20 },
  }).single('file');

function toAppError(err: unknown): AppError {
  if (err instanceof multer.MulterError) {
    if (err.code === 'LIMIT_FILE_SIZE') {
      return new AppError('PAYLOAD_TOO_LARGE', `The file exceeds the upload limit of ${runtime().config.UPLOAD_LIMIT_BYTES} bytes`);
    }
    if (err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT')
      return badRequest('Send exactly one file, in the part named "file"');
    return badRequest(`Malformed multipart body (${err.code})`);
  }
  return badRequest('Malformed multipart body');
}

/** POST /bank-accounts/{id}/statements (multipart `file`, optional `format` and `csvMapping`) → the statement. */
async function importRoute(req: Request, res: Response, actor: Actor): Promise<void> {
  const { id } = parseInput(BankAccountPath, req.params);
  assertActive(await loadAccount(actor, id)); // 404 / 409 before the body is read
  if (!req.is('multipart/form-data'))
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The body must be multipart/form-data with a "file" part');
  const parser = parserFor(runtime().config.UPLOAD_LIMIT_BYTES);
  await parseMultipart(req, res, parser, toAppError);
  if (!req.file) throw badRequest('The "file" part is missing');
  const fields = parseInput(ImportFields, { ...(req.body as Record<string, unknown>) });
  const file = { bytes: req.file.buffer, fileName: req.file.originalname.split(/[\\/]/).pop() || null };
  const statement = await importStatement(actor, id, file, fields).catch((err: unknown) => {
    if (err instanceof AppError) recordStatementImport(fields.format ?? 'UNKNOWN', 'refused');
    throw err;
  });
  recordStatementImport(statement.format, { importedLines: statement.importedCount });
  res.status(200).json(statement);
}

export function bankingRoutes(): Router {
  const r = Router();
  r.post('/bank-accounts/:id/statements', guardedRoute('importBankStatement', { permission: 'bank.manage' }, importRoute));
  return r;
}

documentExpressPath('/bank-accounts/{id}/statements', {
  post: {
    operationId: 'importBankStatement',
    tags: ['Banking'],
    summary: 'Import a bank statement (CSV, OFX 1.x/2.x, camt.053); all or nothing, duplicates skipped',
    description:
      'Permission bank.manage. `format` is detected from the content when absent. A CSV needs `csvMapping` (JSON text) ' +
      'or a mapping saved on the account; a given mapping is saved. Any problem refuses the whole file: 400 whose ' +
      '`issues` are `{line, message}` (1-based line of the file). At most 100,000 lines.',
    security: [{ Authorization: [] }],
    requestParams: { path: BankAccountPath },
    requestBody: { required: true, content: { 'multipart/form-data': { schema: ImportForm } } },
    responses: {
      '200': { description: 'The statement', content: { 'application/json': { schema: StatementObject } } },
      '400': { description: 'Invalid input, or a problem in the file (with issues); nothing stored' },
      '401': { description: 'Not authenticated' },
      '403': { description: 'Missing bank.manage' },
      '404': { description: 'Bank account not found' },
      '409': { description: 'The bank account is deactivated' },
      '413': { description: 'File larger than UPLOAD_LIMIT_BYTES' },
      '415': { description: 'The body is not multipart/form-data' },
    },
  },
});
