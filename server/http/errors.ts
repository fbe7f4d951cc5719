import type { ErrorRequestHandler, Response } from 'express';
import { AppError, badRequest, presentError } from '../lib/errors.js';
import { errorCodeOfStatus } from '../lib/error-table.js';
import { runtime } from '../runtime.js';

/** Sends the contract's error body for an error raised in a plain express route. */
export function sendError(res: Response, err: unknown): void {
  const { status, body, headers } = presentError(err);
  if (status >= 500) {
    runtime().logger.error({ err, requestId: res.getHeader('X-Request-Id') }, 'unhandled error');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
  res.status(status).json(body);
}

type HttpError = { status?: number; statusCode?: number; type?: string; expose?: boolean };

/** Errors raised by express itself and its body parsers (malformed JSON, too large, …). */
export const expressErrorHandler: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
  const e = err as HttpError;
  const status = e?.status ?? e?.statusCode;
  if (!(err instanceof AppError) && typeof status === 'number' && status >= 400 && status < 500) {
    return sendError(res, parserError(status, e.type));
  }
  sendError(res, err);
};

/** A body parser's refusal as the contract's error: too large, unsupported media type, or else a bad request. */
function parserError(status: number, type: string | undefined): AppError {
  const code = errorCodeOfStatus(status);
  if (code === 'PAYLOAD_TOO_LARGE') return new AppError(code, 'Request body too large');
  if (code === 'UNSUPPORTED_MEDIA_TYPE') return new AppError(code, 'Unsupported content type');
  return badRequest(type === 'entity.parse.failed' ? 'Malformed JSON body' : 'Bad request');
}
