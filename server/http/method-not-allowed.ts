import type { NextFunction, Request, Response } from 'express';
import { documentedTemplate } from './route-templates.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A documented path asked with a method it does not have (TRACE /entries, PUT /entries/{id},
 * GET /rules/preview, OPTIONS …) is a 405 with `Allow` naming the methods the document gives it (RFC 9110 §15.5.6), not
 * a 404: the resource exists. Paths the document does not hold (tRPC, /mcp, /docs …) pass on.
 */
export function methodNotAllowed(req: Request, res: Response, next: NextFunction): void {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  // the resource is the most specific template the path matches (`/rules/preview`, not `/rules/{id}`):
  // GET /rules/preview is a 405 (only POST), not GET /rules/{id} with the id "preview"
  const templates = METHODS.map((m) => [m, documentedTemplate(m, req.path)] as const).filter(([, t]) => t !== undefined);
  if (templates.length === 0) return next();
  const literals = (template: string) => template.split('/').filter((segment) => segment && !segment.startsWith('{')).length;
  const resource = templates.map(([, t]) => t!).sort((a, b) => literals(b) - literals(a))[0];
  const allowed = templates.filter(([, t]) => literals(t!) === literals(resource!)).map(([m]) => m);
  if ((allowed as string[]).includes(method)) return next();
  res.setHeader('Allow', allowed.join(', '));
  res
    .status(405)
    .json({ message: `${req.method} is not supported on this path (Allow: ${allowed.join(', ')})`, code: 'METHOD_NOT_SUPPORTED' });
}
