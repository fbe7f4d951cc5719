import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Context } from './context-type.js';
import { boundValidationIssues, presentError } from '../lib/errors.js';

export type RouteMeta = OpenApiMeta;

export const t = initTRPC
  .meta<RouteMeta>()
  .context<Context>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      boundValidationIssues(error); // REST bodies take the issues from the error, not from this shape
      const { status, body } = presentError(error);
      if (ctx?.transport === 'trpc') {
        // the tRPC client needs its envelope; the SDK reads data.code/httpStatus/issues
        return {
          ...shape,
          message: body.message,
          data: { code: body.code, httpStatus: status, issues: body.issues, path: shape.data.path },
        };
      }
      return body as unknown as typeof shape;
    },
  });

export const router = t.router;
export const middleware = t.middleware;
