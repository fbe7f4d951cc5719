import { TRPCError } from '@trpc/server';
import type { Permission } from '../../shared/permissions.js';
import { AppError, knownError } from '../lib/errors.js';
import { requirePermission, type Actor } from '../lib/scope.js';
import { runtime } from '../runtime.js';
import { t } from './init.js';
import { assertKnownQueryInputFields } from './strict-query-input.js';
import type { RouteMeta } from './init.js';

/**
 * Every procedure passes here: rule errors stay as they are, database constraint
 * errors become 4xx, anything else is logged with the request id and masked as a 500.
 */
const normalizeErrors = t.middleware(async ({ ctx, next, path }) => {
  const result = await next();
  if (result.ok) return result;
  const err = result.error;
  if (err instanceof AppError) {
    for (const [name, value] of Object.entries(err.headers ?? {})) ctx.res.setHeader(name, value);
    return result;
  }
  if (err.cause?.name === 'ZodError') return result;
  if (!err.cause && err.code !== 'INTERNAL_SERVER_ERROR') return result; // tRPC's own refusals
  const known = knownError(err.cause ?? err); // the status of a REST answer follows the error's code
  if (known) {
    for (const [name, value] of Object.entries(known.headers ?? {})) ctx.res.setHeader(name, value);
    return { ...result, error: known };
  }
  runtime().logger.error({ err: err.cause ?? err, requestId: ctx.requestId, path }, 'unhandled error');
  return { ...result, error: new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' }) };
});

/** Who may call a procedure, as its builder declared it (read by the security suite, tests/cross-cutting/security). */
export type AccessPolicy = { kind: 'public' } | { kind: 'authenticated' } | { kind: 'permission'; permission: Permission };

const accessPolicies = new WeakMap<object, AccessPolicy>();
function declares<T extends object>(middleware: T, policy: AccessPolicy): T {
  // a t.middleware(...) builder is unpacked by .use(): key its functions
  const fns = '_middlewares' in middleware ? (middleware._middlewares as object[]) : [middleware];
  for (const fn of fns) accessPolicies.set(fn, policy);
  return middleware;
}

/**
 * The policy of a built procedure: that of the last access middleware in its chain (each builder
 * below narrows the one before), or undefined when it was not built from these builders.
 */
export function accessPolicyOf(procedure: { _def: object }): AccessPolicy | undefined {
  const { middlewares = [] } = procedure._def as { middlewares?: readonly object[] };
  return middlewares.reduce<AccessPolicy | undefined>((found, m) => accessPolicies.get(m) ?? found, undefined);
}

export const publicProcedure = t.procedure.use(declares(normalizeErrors, { kind: 'public' }));

export const authedProcedure = publicProcedure.use(
  declares(
    async ({ ctx, next, type, path, getRawInput }) => {
      const actor = await ctx.authenticate();
      // after the 401, before the 403, as on REST (server/http/query-string.ts)
      if (ctx.transport === 'trpc' && type === 'query') assertKnownQueryInputFields(path, await getRawInput());
      return next({ ctx: { ...ctx, actor } });
    },
    { kind: 'authenticated' },
  ),
);

/** Authenticated and holding permission `p` (403 otherwise, before any scope check). */
export const permitted = (p: Permission) =>
  authedProcedure.use(
    declares(
      ({ ctx, next }) => {
        requirePermission(ctx.actor, p);
        return next();
      },
      { kind: 'permission', permission: p },
    ),
  );

/**
 * Holding permission `p` (403 otherwise, before any scope check) — unless the caller is a person (never an API key,
 * which acts for no one) and `isOwn` says the raw input is a change of its own (e.g. a user's own name and password,
 * CONTRACT §4). Declared as needing `p`: that is what every other caller needs.
 */
export const permittedOrOwn = (p: Permission, isOwn: (actor: Actor, rawInput: unknown) => boolean) =>
  authedProcedure.use(
    declares(
      async ({ ctx, next, getRawInput }) => {
        if (ctx.actor.kind !== 'USER' || !isOwn(ctx.actor, await getRawInput())) requirePermission(ctx.actor, p);
        return next();
      },
      { kind: 'permission', permission: p },
    ),
  );

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** OpenAPI metadata for one REST operation. */
export function op(
  method: Method,
  path: `/${string}`,
  operationId: string,
  tag: string,
  summary: string,
  errorResponses: number[] = [],
  opts: { protect?: boolean; description?: string } = {},
): RouteMeta {
  const protect = opts.protect ?? true;
  const errors = new Set(errorResponses);
  if (protect) {
    errors.add(401);
  }
  errors.add(400);
  return {
    openapi: {
      method,
      path,
      operationId,
      tags: [tag],
      summary,
      description: opts.description,
      protect,
      errorResponses: [...errors].sort((a, b) => a - b),
    },
  };
}
