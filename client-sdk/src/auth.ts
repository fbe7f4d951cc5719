import { isSessionEndpoint, urlOf } from './paths.js';
import type { FetchLike, SessionManager } from './session.js';

/** A user's login, used by the client to log in by itself on its first call (and again after a 401). */
export type Credentials = { email: string; password: string };

export interface AuthSource {
  baseUrl: string;
  session: SessionManager;
  /** `Authorization: Bearer <apiKey>` on every call (CONTRACT §19; keys look like `fes_…`). */
  apiKey?: string;
  credentials?: Credentials;
}

/**
 * Adds `Authorization` to every request that has none: the API key, or else the session's token,
 * logging in with the credentials first when they are given and no session is held (one login
 * for calls made at once). The session endpoints themselves never trigger that login.
 */
export function withAuth(fetchImpl: FetchLike, source: AuthSource): FetchLike {
  let pendingLogin: Promise<unknown> | null = null;
  const ensureSession = async (): Promise<void> => {
    const credentials = source.credentials;
    if (!credentials || source.session.getToken()) return;
    pendingLogin ??= source.session.login(credentials.email, credentials.password).finally(() => (pendingLogin = null));
    await pendingLogin;
  };
  return async (input, init = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) {
      if (source.apiKey !== undefined) headers.set('authorization', `Bearer ${source.apiKey}`);
      else {
        if (!isSessionEndpoint(urlOf(input), source.baseUrl)) await ensureSession();
        const token = source.session.getToken();
        if (token) headers.set('authorization', `Bearer ${token}`);
      }
    }
    return fetchImpl(input, { ...init, headers });
  };
}
