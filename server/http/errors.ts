import type { ErrorRequestHandler, Response } from 'express';
import { AppError, presentError } from '../lib/errors.js';
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
    const mapped =
      status === 413
        ? new AppError('PAYLOAD_TOO_LARGE', 'Request body too large')
        : status === 415
          ? new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type')
          : new AppError('BAD_REQUEST', e.type === 'entity.parse.failed' ? 'Malformed JSON body' : 'Bad request');
    return sendError(res, mapped);
  }
  sendError(res, err);
};
