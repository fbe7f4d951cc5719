import type { Request, Response } from 'express';
import multer from 'multer';
import { AppError, badRequest } from '../../lib/errors.js';
import { runtime } from '../../runtime.js';
import type { IncomingFile } from './document-files.service.js';

/** A keyed request's body was already read whole, to fingerprint it (server/http/idempotency-request.ts): busboy reads that copy. */
const streamHandler = (req: Request, busboy: NodeJS.WritableStream) => (req.rawBody ? busboy.end(req.rawBody) : req.pipe(busboy));

/**
 * multer with memory storage: one `file` part and a few small text fields. Built per request,
 * so the size limit is the current UPLOAD_LIMIT_BYTES.
 */
const parserFor = (uploadLimit: number) => {
  const options: multer.Options & { streamHandler: typeof streamHandler } = {
    storage: multer.memoryStorage(),
    preservePath: true, // the service strips paths itself (both / and \), the same for every caller
    defParamCharset: 'utf8',
    limits: { fileSize: uploadLimit, files: 1, fields: 4, parts: 5, fieldSize: 1024, fieldNameSize: 100, headerPairs: 20 },
    streamHandler, // not in @types/multer 2.3 (multer 2.5 has it)
  };
  return multer(options).single('file');
};

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

const hasBody = (req: Request) => Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;

/** Reads the multipart body: the file (400 when absent, 413 when too large) and the text fields. */
export async function receiveFile(req: Request, res: Response): Promise<{ file: IncomingFile; fields: Record<string, unknown> }> {
  if (!req.is('multipart/form-data')) {
    if (!hasBody(req)) throw badRequest('A multipart/form-data body with a "file" part is required');
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The body must be multipart/form-data');
  }
  const parser = parserFor(runtime().config.UPLOAD_LIMIT_BYTES);
  await new Promise<void>((resolve, reject) => parser(req, res, (err?: unknown) => (err ? reject(toAppError(err)) : resolve())));
  if (!req.file) throw badRequest('The "file" part is missing');
  const file = { bytes: req.file.buffer, fileName: req.file.originalname, declaredType: req.file.mimetype };
  return { file, fields: { ...(req.body as Record<string, unknown>) } };
}
