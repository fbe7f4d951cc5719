import type { Request, Response } from 'express';
import type { Actor } from '../lib/scope.js';

export type Transport = 'rest' | 'trpc';

export type Context = {
  req: Request;
  res: Response;
  requestId: string;
  transport: Transport;
  actor?: Actor;
};

export const contextFactory =
  (transport: Transport) =>
  ({ req, res }: { req: Request; res: Response }): Context => ({
    req,
    res,
    transport,
    requestId: String(res.getHeader('X-Request-Id') ?? ''),
  });
