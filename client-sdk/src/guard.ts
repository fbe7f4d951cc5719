import { bearerOf, isSessionEndpoint, urlOf } from './paths.js';
import type { FetchLike, SessionManager } from './session.js';

/** Wraps fetch so that a 401 from any call other than login/refresh/logout ends the session. */
export function guardUnauthorized(fetchImpl: FetchLike, session: SessionManager, baseUrl: string): FetchLike {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    if (res.status === 401) {
      const request = input instanceof Request ? input : undefined;
      if (!isSessionEndpoint(urlOf(input), baseUrl)) session.handleUnauthorized(bearerOf(init?.headers ?? request?.headers));
    }
    return res;
  };
}
