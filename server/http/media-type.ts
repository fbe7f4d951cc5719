import type { RequestHandler } from 'express';
import { AppError } from '../lib/errors.js';
import { sendError } from './errors.js';

/**
 * For the express routes that take a JSON body (ingest, provider webhooks): a body of another
 * media type is a 415, as trpc-to-openapi answers for the REST procedures. A request without a
 * body passes (the route's own validation answers it).
 */
export const jsonBodiesOnly: RequestHandler = (req, res, next) => {
  if (req.is('application/json') === false) {
    return sendError(res, new AppError('UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json'));
  }
  next();
};
