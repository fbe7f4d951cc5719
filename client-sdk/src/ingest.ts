import { ApiError } from './errors.js';
import { joinUrl } from './paths.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, newIdempotencyKey, withRetries } from './retry.js';
import type { FetchLike } from './session.js';
import type { IngestItem, IngestResponse } from './types.js';

export interface IngestClientOptions {
  /** Service origin (and base path), e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The integration's key (`POST /integrations` shows it once). */
  apiKey: string;
  /** As for createClient: time limit per attempt (default 60 000) and retries (default 2). */
  timeoutMs?: number;
  maxRetries?: number;
  fetch?: FetchLike;
}

export interface IngestClient {
  /**
   * `POST /api/v1/ingest` with `X-API-Key`: 1..1000 entries, each judged on its own (CREATED,
   * DUPLICATE for an `externalId` already ingested, or ERROR). Carries an Idempotency-Key (yours,
   * else a new one) so that its retries are safe. Throws ApiError for a refused request: 400 (not an
   * ingest body), 401 (bad or revoked key), 413, 429 (`retryAfterSeconds`).
   */
  ingest(entries: readonly IngestItem[], options?: { idempotencyKey?: string; signal?: AbortSignal }): Promise<IngestResponse>;
}

/** A client for server-to-server ingest with an API key; it needs no login. */
export function createIngestClient(options: IngestClientOptions): IngestClient {
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const send = withRetries(fetchImpl, {
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
  });
  return {
    async ingest(entries, { idempotencyKey, signal } = {}) {
      const res = await send(joinUrl(options.baseUrl, '/api/v1/ingest'), {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'X-API-Key': options.apiKey,
          'Idempotency-Key': idempotencyKey ?? newIdempotencyKey(),
        },
        body: JSON.stringify({ entries }),
        signal,
      });
      if (!res.ok) throw await ApiError.fromResponse(res);
      return (await res.json()) as IngestResponse;
    },
  };
}
