import { createTRPCClient, httpLink, type TRPCClient } from '@trpc/client';
import type { AppRouter } from './app-router.js';
import { guardUnauthorized } from './guard.js';
import { joinUrl } from './paths.js';
import { createFileHelpers, type FileHelpers } from './files.js';
import { createBankingHelpers, type BankingHelpers } from './banking.js';
import { createEntryHelpers, type EntryHelpers } from './entries.js';
import { createRestClient, type RestClient } from './rest.js';
import { SessionManager, type FetchLike, type LogoutReason, type SessionManagerOptions } from './session.js';

export { ApiError, toApiError, type ErrorBody } from './errors.js';
export type { Query, QueryValue, RequestOptions, RestClient, SendOptions } from './rest.js';
export { fileNameOf, type Download } from './download.js';
export type { FileHelpers, UploadDocumentInput } from './files.js';
export type { BankingHelpers, ImportStatementOptions } from './banking.js';
export type { EntryHelpers, EntryListPage, EntryListQuery, ListedEntry } from './entries.js';
export { createIngestClient, type IngestClient, type IngestClientOptions } from './ingest.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhook,
  WebhookVerificationError,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
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
  /** Every procedure, typed through AppRouter, at `{baseUrl}/trpc`. */
  trpc: TRPCClient<AppRouter>;
  /** Any REST path with the session's token: `request` (JSON) and `send` (raw response). */
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
  const session = new SessionManager({ ...options.session, baseUrl, fetch: fetchImpl, onLogout: options.onLogout });
  const guardedFetch = guardUnauthorized(fetchImpl, session, baseUrl);
  const trpc = createTRPCClient<AppRouter>({
    links: [httpLink({ url: joinUrl(baseUrl, '/trpc'), headers: () => session.authHeaders(), fetch: guardedFetch })],
  });
  const rest = createRestClient({ baseUrl, fetch: guardedFetch, session });
  return { session, trpc, rest, files: createFileHelpers(rest), banking: createBankingHelpers(rest), entries: createEntryHelpers(trpc) };
}
