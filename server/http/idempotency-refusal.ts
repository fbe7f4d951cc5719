import type { Request, Response } from 'express';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { presentError } from '../lib/errors.js';
import { sendError } from './errors.js';

/**
 * A replay refused because the caller lost access answers as the call would answer now: the
 * contract's error body on REST, the tRPC error envelope (as the SDK reads it) on /trpc.
 */
export function sendReplayRefusal(req: Request, res: Response, err: unknown): void {
  const procedure = /^\/trpc\/([^?/]+)/.exec(req.originalUrl)?.[1];
  if (procedure === undefined) return sendError(res, err);
  const { status, body } = presentError(err);
  res.status(status).json({
    error: {
      message: body.message,
      code: TRPC_ERROR_CODES_BY_KEY[body.code as keyof typeof TRPC_ERROR_CODES_BY_KEY],
      data: { code: body.code, httpStatus: status, path: decodeURIComponent(procedure) },
    },
  });
}
