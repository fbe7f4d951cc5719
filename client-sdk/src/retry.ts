import { ConnectionError, retryAfterSeconds } from './errors.js';
import type { FetchLike } from './session.js';

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;
/** Backoff before the first retry; doubled for each further retry, up to MAX_BACKOFF_MS. */
export const INITIAL_BACKOFF_MS = 500;
export const MAX_BACKOFF_MS = 8_000;
/** A `Retry-After` longer than this is not waited for: the error goes to the caller instead. */
export const MAX_RETRY_AFTER_SECONDS = 60;

export interface RetryPolicy {
  /** Time limit of one attempt until the response headers arrive. */
  timeoutMs: number;
  /** Further attempts after the first, for requests safe to repeat. */
  maxRetries: number;
  /** Waits (tests inject a fake); must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** A new Idempotency-Key (a random UUID). */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Wraps fetch with a time limit per attempt and retries: on no answer (network error, timeout),
 * on 429 and on 503, for requests safe to repeat only: GET and HEAD, or a request carrying an
 * Idempotency-Key (whose retries reuse it, so the service does the work at most once). The wait
 * is the answer's `Retry-After` when it gives one (up to 60 s), else exponential backoff with
 * jitter. A failure without an answer becomes a ConnectionError.
 */
export function withRetries(fetchImpl: FetchLike, policy: RetryPolicy): FetchLike {
  const sleep = policy.sleep ?? defaultSleep;
  const random = policy.random ?? Math.random;
  return async (input, init = {}) => {
    const request = await repeatableInit(init);
    const repeatable = request !== undefined && isSafeToRepeat(init);
    const attemptInit = request ?? init;
    for (let attempt = 0; ; attempt++) {
      const canRetry = repeatable && attempt < policy.maxRetries;
      let res: Response;
      try {
        res = await attemptOnce(fetchImpl, input, attemptInit, policy.timeoutMs);
      } catch (err) {
        if (!(err instanceof ConnectionError) || !canRetry) throw err;
        await sleep(backoffMs(attempt, random), init.signal ?? undefined);
        continue;
      }
      if (!canRetry || (res.status !== 429 && res.status !== 503)) return res;
      const retryAfter = retryAfterSeconds(res.headers.get('retry-after'));
      if (retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_SECONDS) return res;
      await res.body?.cancel().catch(() => undefined);
      await sleep(retryAfter !== undefined ? retryAfter * 1000 : backoffMs(attempt, random), init.signal ?? undefined);
    }
  };
}

function isSafeToRepeat(init: RequestInit): boolean {
  const method = (init.method ?? 'GET').toUpperCase();
  return method === 'GET' || method === 'HEAD' || new Headers(init.headers).has('idempotency-key');
}

/**
 * The request with a body that can be sent again byte for byte, or undefined when it cannot (a
 * stream). A FormData body is encoded once: encoding it per attempt would pick a new multipart
 * boundary, and the service treats different bytes under one Idempotency-Key as a conflict.
 */
async function repeatableInit(init: RequestInit): Promise<RequestInit | undefined> {
  const body = init.body;
  if (body === undefined || body === null || typeof body === 'string' || body instanceof Blob) return init;
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body) || body instanceof URLSearchParams) return init;
  if (body instanceof FormData) {
    const encoded = new Request('http://sdk.invalid/', { method: 'POST', body });
    const headers = new Headers(init.headers);
    headers.set('content-type', encoded.headers.get('content-type') ?? 'multipart/form-data');
    return { ...init, headers, body: new Uint8Array(await encoded.arrayBuffer()) };
  }
  return undefined;
}

async function attemptOnce(fetchImpl: FetchLike, input: Parameters<FetchLike>[0], init: RequestInit, timeoutMs: number) {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout.signal]) : timeout.signal;
  try {
    return await fetchImpl(input, { ...init, signal });
  } catch (err) {
    if (init.signal?.aborted) throw err; // the caller's own abort: not ours to retry or rename
    if (timeout.signal.aborted) throw new ConnectionError('TIMEOUT', `No response within ${timeoutMs} ms`, err);
    throw new ConnectionError('CONNECTION_ERROR', `Request failed: ${err instanceof Error ? err.message : String(err)}`, err);
  } finally {
    clearTimeout(timer);
  }
}

/** Exponential backoff with jitter: between half and all of min(500 ms × 2^attempt, 8 s). */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(INITIAL_BACKOFF_MS * 2 ** attempt, MAX_BACKOFF_MS);
  return Math.round(ceiling * (0.5 + random() * 0.5));
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
