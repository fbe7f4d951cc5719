import type { NextFunction, Request, Response } from 'express';
import { documentedTemplate } from './route-templates.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A documented path asked with a method it does not have (TRACE /entries, PUT /entries/{id},
 * OPTIONS …) is a 405 with `Allow` naming the methods the document gives it (RFC 9110 §15.5.6), not
 * a 404: the resource exists. Paths the document does not hold (tRPC, /mcp, /docs …) pass on.
 */
export function methodNotAllowed(req: Request, res: Response, next: NextFunction): void {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  if (documentedTemplate(method, req.path)) return next();
  const allowed = METHODS.filter((m) => documentedTemplate(m, req.path) !== undefined);
  if (allowed.length === 0) return next();
  res.setHeader('Allow', allowed.join(', '));
  res
    .status(405)
    .json({ message: `${req.method} is not supported on this path (Allow: ${allowed.join(', ')})`, code: 'METHOD_NOT_SUPPORTED' });
}
