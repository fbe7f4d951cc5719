import { Readable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import '../lib/raw-body.js';

/**
 * Runs a multer `parser` on a request's multipart body and leaves its files and fields on `req`.
 * A request with an Idempotency-Key has had its body read whole already, to fingerprint it
 * (server/http/idempotency-request.ts keeps it as `req.rawBody`): the parser then reads that copy,
 * since the request stream is spent. The statement and rate uploads read their bodies through here;
 * the document uploads feed the same copy to busboy in their own part-header hook (documents/upload-parser.ts).
 */
export async function parseMultipart(req: Request, res: Response, parser: RequestHandler, toError: (err: unknown) => Error): Promise<void> {
  const source = req.rawBody ? (Object.assign(Readable.from([req.rawBody]), { headers: req.headers }) as unknown as Request) : req;
  await new Promise<void>((resolve, reject) => parser(source, res, (err?: unknown) => (err ? reject(toError(err)) : resolve())));
  if (source !== req) Object.assign(req, { file: source.file, files: source.files, body: source.body as unknown });
}
