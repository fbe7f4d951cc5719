import { ApiError } from './errors.js';
import { decodeJwtExp } from './jwt.js';
import { joinUrl } from './paths.js';

export type AuthUser = { id: string; email: string; name: string; permissions: string[] };

/** The body of a successful `/auth/login` or `/auth/refresh`. */
export type TokenResponse = { access_token: string; token_type: 'Bearer'; expires_in: number; user: AuthUser };

/**
 * Why a session ended: `user` for logout(), `unauthorized` for a 401 from an API call,
 * `refresh_rejected` when the refresh endpoint refused the token, `expired` when refresh
 * kept failing until the token was past the server's grace period.
 */
export type LogoutReason = 'user' | 'unauthorized' | 'refresh_rejected' | 'expired';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export interface SessionManagerOptions {
  baseUrl: string;
  fetch?: FetchLike;
  timers?: Partial<Timers>;
  onLogout?: (reason: LogoutReason) => void;
  onTokenChange?: (token: string | null) => void;
}

/** Token lifetime assumed when neither the JWT nor the response says otherwise. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
/** Refresh this long before expiry. */
export const REFRESH_LEAD_MS = 60_000;
/** Wait this long before retrying a refresh that failed with a 5xx or a network error. */
export const REFRESH_RETRY_MS = 30_000;
/** The server accepts a refresh until this long after expiry. */
export const REFRESH_GRACE_MS = 7 * 60_000;

/** setTimeout's upper bound; longer waits are split. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const defaultTimers: Timers = {
  setTimeout(callback, ms) {
    const handle = globalThis.setTimeout(callback, ms);
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimeout: (handle) => globalThis.clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
  now: () => Date.now(),
};

const defaultFetch: FetchLike = (input, init) => globalThis.fetch(input, init);

type Session = { token: string; expiresAt: number; user: AuthUser | null };

/**
 * Holds the access token, refreshes it 60 s before expiry, retries failed refreshes every 30 s
 * while the server may still accept them, and ends the session on any 401 outside the
 * session endpoints.
 */
export class SessionManager {
  private readonly baseUrl: string;
  private readonly fetchImpl: FetchLike;
  private readonly timers: Timers;
  private readonly onLogout?: (reason: LogoutReason) => void;
  private readonly onTokenChange?: (token: string | null) => void;

  private session: Session | null = null;
  /** Bumped whenever the session is replaced or cleared, so late answers for an old one are dropped. */
  private epoch = 0;
  private timer: { handle: unknown; dueAt: number } | null = null;
  private inFlight: Promise<boolean> | null = null;

  constructor(options: SessionManagerOptions) {
    this.baseUrl = options.baseUrl;
    this.fetchImpl = options.fetch ?? defaultFetch;
    this.timers = { ...defaultTimers, ...options.timers };
    this.onLogout = options.onLogout;
    this.onTokenChange = options.onTokenChange;
  }

  getToken(): string | null {
    return this.session?.token ?? null;
  }

  getUser(): AuthUser | null {
    return this.session?.user ?? null;
  }

  /** Expiry of the current token in epoch milliseconds. */
  getExpiresAt(): number | null {
    return this.session?.expiresAt ?? null;
  }

  /** The Authorization header for the current token, or no header. */
  authHeaders(): Record<string, string> {
    return this.session ? { Authorization: `Bearer ${this.session.token}` } : {};
  }

  /** Logs in; a refused login throws ApiError and leaves any current session as it was. */
  async login(email: string, password: string): Promise<TokenResponse> {
    const res = await this.fetchImpl(joinUrl(this.baseUrl, '/auth/login'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    if (!res.ok) throw await ApiError.fromResponse(res);
    const body = await readTokenResponse(res);
    if (!body) throw new ApiError(res.status, 'INVALID_RESPONSE', 'The login response is malformed');
    this.replaceSession();
    this.store(body.access_token, body.expires_in, body.user);
    return body;
  }

  /**
   * Adopts a token kept from an earlier page load. Returns false, changing nothing, when the token
   * has no readable `exp` or is past the refresh grace period.
   */
  restore(token: string, user: AuthUser | null = null): boolean {
    const exp = decodeJwtExp(token);
    if (exp === undefined || this.timers.now() > exp * 1000 + REFRESH_GRACE_MS) return false;
    this.replaceSession();
    this.store(token, undefined, user);
    return true;
  }

  /** Ends the session locally and asks the server to revoke it; server or network failures are ignored. */
  async logout(): Promise<void> {
    const token = this.session?.token;
    if (!token) return;
    const request = this.fetchImpl(joinUrl(this.baseUrl, '/auth/logout'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{}',
      keepalive: true,
    }).catch(() => undefined);
    this.end('user');
    await request;
  }

  /**
   * For when a tab regains focus: false without a session; refreshes now when the token is
   * expired or within 60 s of expiry. Resolves true while a usable token is held afterwards.
   */
  async checkValidity(): Promise<boolean> {
    const session = this.session;
    if (!session) return false;
    if (this.timers.now() < session.expiresAt - REFRESH_LEAD_MS) return true;
    return this.refresh();
  }

  /** Refreshes now (joining a refresh already under way). Resolves true while a usable token is held. */
  refresh(): Promise<boolean> {
    if (!this.session) return Promise.resolve(false);
    if (!this.inFlight) {
      const attempt: Promise<boolean> = this.runRefresh().finally(() => {
        if (this.inFlight === attempt) this.inFlight = null;
      });
      this.inFlight = attempt;
    }
    return this.inFlight;
  }

  /**
   * Reports a 401 from a non-session call. Logs out when that call carried the current token;
   * a 401 for a token already replaced says nothing about the current session.
   */
  handleUnauthorized(tokenUsed: string | undefined): void {
    if (this.session && tokenUsed === this.session.token) this.end('unauthorized');
  }

  private async runRefresh(): Promise<boolean> {
    const session = this.session;
    if (!session) return false;
    const epoch = this.epoch;
    this.cancelTimer();
    if (this.isPastGrace(session)) {
      this.end('expired');
      return false;
    }
    const outcome = await this.requestRefresh(session.token);
    if (epoch !== this.epoch) return this.hasLiveToken();
    if (outcome === 'transient') return this.retryLater(session);
    if (outcome === 'rejected') {
      this.end('refresh_rejected');
      return false;
    }
    this.store(outcome.access_token, outcome.expires_in, outcome.user);
    return true;
  }

  /** 5xx, network errors and malformed 2xx answers are transient; any other non-2xx is a rejection. */
  private async requestRefresh(token: string): Promise<TokenResponse | 'transient' | 'rejected'> {
    let res: Response;
    try {
      res = await this.fetchImpl(joinUrl(this.baseUrl, '/auth/refresh'), {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
        body: '{}',
      });
    } catch {
      return 'transient';
    }
    if (res.ok) return (await readTokenResponse(res)) ?? 'transient';
    return res.status >= 500 ? 'transient' : 'rejected';
  }

  /** After a 5xx, a network error or a malformed answer: retry in 30 s unless the grace period is over. */
  private retryLater(session: Session): boolean {
    if (this.isPastGrace(session)) {
      this.end('expired');
      return false;
    }
    this.scheduleAt(this.timers.now() + REFRESH_RETRY_MS);
    return this.hasLiveToken();
  }

  private store(token: string, expiresIn: number | undefined, user: AuthUser | null): void {
    const exp = decodeJwtExp(token);
    const expiresAt = exp !== undefined ? exp * 1000 : this.timers.now() + (expiresIn ?? ACCESS_TOKEN_TTL_SECONDS) * 1000;
    this.session = { token, expiresAt, user: user ?? this.session?.user ?? null };
    this.scheduleAt(expiresAt - REFRESH_LEAD_MS);
    this.onTokenChange?.(token);
  }

  private replaceSession(): void {
    this.cancelTimer();
    this.epoch += 1;
    this.inFlight = null;
    this.session = null;
  }

  private end(reason: LogoutReason): void {
    if (!this.session) return;
    this.replaceSession();
    this.onTokenChange?.(null);
    this.onLogout?.(reason);
  }

  private isPastGrace(session: Session): boolean {
    return this.timers.now() > session.expiresAt + REFRESH_GRACE_MS;
  }

  private hasLiveToken(): boolean {
    return this.session !== null && this.timers.now() < this.session.expiresAt;
  }

  private scheduleAt(dueAt: number): void {
    this.cancelTimer();
    const delay = Math.min(Math.max(0, dueAt - this.timers.now()), MAX_TIMER_MS);
    const handle = this.timers.setTimeout(() => this.onTimer(), delay);
    this.timer = { handle, dueAt };
  }

  private onTimer(): void {
    const dueAt = this.timer?.dueAt;
    this.timer = null;
    if (dueAt === undefined) return;
    if (this.timers.now() < dueAt) this.scheduleAt(dueAt);
    else void this.refresh();
  }

  private cancelTimer(): void {
    if (this.timer) this.timers.clearTimeout(this.timer.handle);
    this.timer = null;
  }
}

async function readTokenResponse(res: Response): Promise<TokenResponse | undefined> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return undefined;
  }
  const b = body as Partial<TokenResponse> | null;
  if (!b || typeof b.access_token !== 'string' || b.access_token === '') return undefined;
  if (typeof b.expires_in !== 'number' || !Number.isFinite(b.expires_in)) return undefined;
  return b as TokenResponse;
}
