import type { Request, Response } from 'express';
import { requestActor } from '../domains/auth/index.js';
import type { Context, Transport } from './context-type.js';

export type { Context, Transport } from './context-type.js';

/** The context of one request, on `transport`. */
export function contextOf(transport: Transport, req: Request, res: Response): Context {
  return {
    req,
    res,
    transport,
    requestId: String(res.getHeader('X-Request-Id') ?? ''),
    authenticate: () => requestActor(req),
  };
}

export const contextFactory =
  (transport: Transport) =>
  ({ req, res }: { req: Request; res: Response }): Context =>
    contextOf(transport, req, res);
