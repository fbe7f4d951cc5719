import type { Request, RequestHandler, Response } from 'express';
import type { Permission } from '../../shared/permissions.js';
import type { Actor } from '../lib/scope.js';
import { authorizeRequest } from '../domains/auth/index.js';
import type { AccessPolicy } from '../trpc/procedures.js';
import { sendError } from './errors.js';

/** The access an express route declares: any authenticated caller, or one holding `permission`. */
export type RouteAccess = { permission?: Permission };

const declared = new Map<string, AccessPolicy>();

/**
 * An express route behind the same access check as the procedure builders (trpc/procedures.ts: authedProcedure,
 * permitted): 401 without a valid bearer token or app key, then 403 without the permission, before the handler
 * runs with the caller. The route declares its access here, once, by its OpenAPI operationId (read by the
 * security suite as a procedure's is). Errors answer with the contract's error body.
 */
export function guardedRoute(
  operationId: string,
  access: RouteAccess,
  handler: (req: Request, res: Response, actor: Actor) => Promise<void>,
): RequestHandler {
  declared.set(operationId, access.permission ? { kind: 'permission', permission: access.permission } : { kind: 'authenticated' });
  return (req, res) => {
    authorizeRequest(req, access.permission)
      .then((actor) => handler(req, res, actor))
      .catch((err: unknown) => sendError(res, err));
  };
}

/** The access the express route of `operationId` declared, or undefined when it declared none. */
export const routeAccessOf = (operationId: string): AccessPolicy | undefined => declared.get(operationId);
