import { createTRPCClient, httpLink, type TRPCClient } from '@trpc/client';
import type { AppRouter } from './app-router.js';
import { toApiError } from './errors.js';
import { joinUrl } from './paths.js';
import { newIdempotencyKey } from './retry.js';
import type { FetchLike } from './session.js';

/**
 * The typed tRPC client at `{baseUrl}/trpc`. Every mutation carries an Idempotency-Key (the
 * caller's, from `mutate(input, { context: { idempotencyKey } })`, else a new one), which the
 * fetch below reuses across its retries. Failures are thrown as ApiError subclasses, as on REST.
 */
export function createTrpcClient(baseUrl: string, fetchImpl: FetchLike): TRPCClient<AppRouter> {
  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: joinUrl(baseUrl, '/trpc'),
        fetch: fetchImpl,
        headers: ({ op }) => {
          if (op.type !== 'mutation') return {};
          const own = op.context['idempotencyKey'];
          return { 'Idempotency-Key': typeof own === 'string' && own !== '' ? own : newIdempotencyKey() };
        },
      }),
    ],
  });
  return withApiErrors(client);
}

/** tRPC's client is a tree of callable proxies; this one mirrors it and rethrows failures as ApiError. */
function withApiErrors<T extends object>(target: T): T {
  return new Proxy(target, {
    get(t, key) {
      const value: unknown = Reflect.get(t, key);
      return typeof value === 'function' ? withApiErrors(value) : value;
    },
    apply(t, thisArg, args) {
      const result: unknown = Reflect.apply(t as (...a: unknown[]) => unknown, thisArg, args);
      if (!(result instanceof Promise)) return result;
      return result.catch((err: unknown) => {
        throw toApiError(err) ?? err;
      });
    },
  });
}
