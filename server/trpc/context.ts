import type { Request, Response } from 'express';
import type { Actor } from '../lib/scope.js';
import { requestActor } from '../domains/auth/index.js';

export type Transport = 'rest' | 'trpc';

export type Context = {
  req: Request;
  res: Response;
  requestId: string;
  transport: Transport;
  actor?: Actor;
  /**
   * The caller of this request as an actor (a user's token or an app's key; 401 otherwise). The
   * context carries it so that the procedure builders need not import the auth domain, whose
   * routers are built from them.
   */
  authenticate: () => Promise<Actor>;
};

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
