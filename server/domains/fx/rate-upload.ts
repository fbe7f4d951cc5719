import type { Request, Response } from 'express';
import multer from 'multer';
import { AppError, badRequest } from '../../lib/errors.js';
import { runtime } from '../../runtime.js';
import { parseMultipart } from '../../http/multipart-body.js';

/** Parts of a rate-file upload read at most; besides `file` they are ignored (CONTRACT §17). */
const PART_LIMITS = { files: 5, fields: 50, parts: 60, fieldSize: 64 * 1024, fieldNameSize: 200, headerPairs: 20 };

function toAppError(err: unknown): AppError {
  if (err instanceof multer.MulterError && err.code === 'LIMIT_FILE_SIZE') {
    return new AppError('PAYLOAD_TOO_LARGE', `The file exceeds the upload limit of ${runtime().config.UPLOAD_LIMIT_BYTES} bytes`);
  }
  return badRequest(err instanceof multer.MulterError ? `Malformed multipart body (${err.code})` : 'Malformed multipart body');
}

/**
 * The bytes of the multipart part named `file` (memory storage, UPLOAD_LIMIT_BYTES → 413);
 * other parts, files or text, are read and ignored. 400 without a `file` part, 415 for a
 * body that is not multipart/form-data.
 */
export async function receiveRateFile(req: Request, res: Response): Promise<Buffer> {
  if (!req.is('multipart/form-data')) {
    const empty = Number(req.get('content-length') ?? 0) === 0 && req.get('transfer-encoding') === undefined;
    if (empty) throw badRequest('A multipart/form-data body with a "file" part is required');
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The body must be multipart/form-data');
  }
  const parser = multer({
    storage: multer.memoryStorage(),
    limits: { ...PART_LIMITS, fileSize: runtime().config.UPLOAD_LIMIT_BYTES },
  }).any();
  await parseMultipart(req, res, parser, toAppError);
  const files = (req.files ?? []) as Express.Multer.File[];
  const file = files.find((f) => f.fieldname === 'file');
  if (!file) throw badRequest('The "file" part is missing');
  return file.buffer;
}
