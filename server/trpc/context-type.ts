import type { Request, Response } from 'express';
import type { Actor } from '../lib/scope.js';

/*
 * The tRPC context's type, apart from contextOf (context.ts), which imports the auth domain: the procedure
 * builders (init.ts) need the type only, and the auth domain's routers are built from them.
 */

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
