import { createTRPCClient, httpLink, type TRPCClient } from '@trpc/client';
import type { AppRouter } from '../../server/trpc/router.js';
import { guardUnauthorized } from './guard.js';
import { joinUrl } from './paths.js';
import { createRestClient, type RestClient } from './rest.js';
import { SessionManager, type FetchLike, type LogoutReason, type SessionManagerOptions } from './session.js';

export { ApiError, toApiError, type ErrorBody } from './errors.js';
export type { QueryValue, RequestOptions, RestClient } from './rest.js';
export {
  ACCESS_TOKEN_TTL_SECONDS,
  REFRESH_GRACE_MS,
  REFRESH_LEAD_MS,
  REFRESH_RETRY_MS,
  SessionManager,
  type AuthUser,
  type FetchLike,
  type LogoutReason,
  type SessionManagerOptions,
  type Timers,
  type TokenResponse,
} from './session.js';
export type { AppRouter };

export interface ClientOptions {
  /** Service origin (and base path), e.g. `https://api.example.com`. */
  baseUrl: string;
  fetch?: FetchLike;
  /** Called whenever the session ends, with the reason. */
  onLogout?: (reason: LogoutReason) => void;
  /** Further session settings: injected timers, onTokenChange. */
  session?: Omit<SessionManagerOptions, 'baseUrl' | 'fetch' | 'onLogout'>;
}

export interface Client {
  session: SessionManager;
  trpc: TRPCClient<AppRouter>;
  rest: RestClient;
}

export function createClient(options: ClientOptions): Client {
  const { baseUrl } = options;
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const session = new SessionManager({ ...options.session, baseUrl, fetch: fetchImpl, onLogout: options.onLogout });
  const guardedFetch = guardUnauthorized(fetchImpl, session, baseUrl);
  const trpc = createTRPCClient<AppRouter>({
    links: [httpLink({ url: joinUrl(baseUrl, '/trpc'), headers: () => session.authHeaders(), fetch: guardedFetch })],
  });
  const rest = createRestClient({ baseUrl, fetch: guardedFetch, session });
  return { session, trpc, rest };
}
