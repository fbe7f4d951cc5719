import type { TRPCClient } from '@trpc/client';
import type { AppRouter } from './app-router.js';
import { withAuth, type Credentials } from './auth.js';
import { guardUnauthorized } from './guard.js';
import { createFileHelpers, type FileHelpers } from './files.js';
import { createBankingHelpers, type BankingHelpers } from './banking.js';
import { createEntryHelpers, type EntryHelpers } from './entries.js';
import { createRestClient, type RestClient } from './rest.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, withRetries } from './retry.js';
import { SessionManager, type FetchLike, type LogoutReason, type SessionManagerOptions } from './session.js';
import { createTrpcClient } from './trpc.js';

export {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitError,
  ServerError,
  UnsupportedMediaTypeError,
  ValidationError,
  toApiError,
  type ErrorBody,
} from './errors.js';
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, newIdempotencyKey } from './retry.js';
export type { Credentials } from './auth.js';
export type { BudgetExceeded, WebhookEvent, WebhookEventPayloads, WebhookEventType } from './events.js';
export { WEBHOOK_EVENT_TYPES } from './events.js';
export type { Query, QueryValue, RequestOptions, RestClient, SendOptions } from './rest.js';
export { fileNameOf, type Download } from './download.js';
export type { FileHelpers, UploadDocumentInput } from './files.js';
export type { BankingHelpers, ImportStatementOptions } from './banking.js';
export type { EntryHelpers, EntryListPage, EntryListQuery, ListedEntry } from './entries.js';
export { createIngestClient, type IngestClient, type IngestClientOptions } from './ingest.js';
export { DEFAULT_TOLERANCE_SECONDS, verifyWebhook, WebhookVerificationError, type VerifyOptions, type WebhookHeaders } from './webhooks.js';
export type * from './types.js';
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

interface CommonOptions {
  /** Service origin (and base path), e.g. `https://api.example.com`. */
  baseUrl: string;
  /** Time limit of one attempt until the response headers arrive (default 60 000). */
  timeoutMs?: number;
  /**
   * Retries of a request that is safe to repeat (GET, or any request with an Idempotency-Key: every
   * POST the SDK sends) after a network error, a timeout, a 429 or a 503 (default 2; 0 disables).
   */
  maxRetries?: number;
  fetch?: FetchLike;
  /** Called whenever the session ends, with the reason. */
  onLogout?: (reason: LogoutReason) => void;
  /** Further session settings: injected timers, onTokenChange. */
  session?: Omit<SessionManagerOptions, 'baseUrl' | 'fetch' | 'onLogout'>;
}

/**
 * How the client authenticates: an app's API key (`fes_…`, sent as `Authorization: Bearer`), a
 * user's credentials (the client logs in on its first call and again after the session ends), or
 * neither (call `session.login` yourself).
 */
export type ClientOptions = CommonOptions &
  (
    { apiKey: string; credentials?: never } | { credentials: Credentials; apiKey?: never } | { apiKey?: undefined; credentials?: undefined }
  );

export interface Client {
  session: SessionManager;
  /** Every procedure, typed through AppRouter, at `{baseUrl}/trpc`; failures throw ApiError. */
  trpc: TRPCClient<AppRouter>;
  /** Any REST path with the client's credentials: `request` (JSON) and `send` (raw response). */
  rest: RestClient;
  /** Uploads, downloads and the CSV/PDF exports, which tRPC cannot carry. */
  files: FileHelpers;
  /** Bank statement import (multipart). */
  banking: BankingHelpers;
  /** Async iterators over every page (or every entry) of `GET /entries`, by cursor (CONTRACT §18). */
  entries: EntryHelpers;
}

export function createClient(options: ClientOptions): Client {
  const { baseUrl } = options;
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const policy = withRetries(fetchImpl, {
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
  });
  const session = new SessionManager({ ...options.session, baseUrl, fetch: policy, onLogout: options.onLogout });
  const authed = withAuth(guardUnauthorized(policy, session, baseUrl), {
    baseUrl,
    session,
    apiKey: options.apiKey,
    credentials: options.credentials,
  });
  const trpc = createTrpcClient(baseUrl, authed);
  const rest = createRestClient({ baseUrl, fetch: authed });
  return { session, trpc, rest, files: createFileHelpers(rest), banking: createBankingHelpers(rest), entries: createEntryHelpers(trpc) };
}

// @trpc/server's declarations name the global Disposable and AsyncDisposable (TypeScript's lib
// esnext.disposable, or @types/node): declared here, empty, they merge with those where present
// and let an app compile without them (lib ["ES2022", "DOM"], no Node types, skipLibCheck false)
declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a merge target only
  interface Disposable {}
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a merge target only
  interface AsyncDisposable {}
}
