/**
 * A provider call that did not succeed. `retryable` failures (network errors, timeouts, 5xx)
 * have already been retried by the HTTP client when this is thrown; the message is safe to
 * store as a sync record's `lastError` (it never holds a credential).
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly kind: 'NETWORK' | 'TIMEOUT' | 'HTTP' | 'INVALID_RESPONSE' | 'REDIRECT' | 'CONFIGURATION' | 'AUTH',
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

export const isProviderError = (err: unknown): err is ProviderError => err instanceof ProviderError;

/** Provider text kept in lastError: one line, bounded. */
export const excerpt = (text: string, max = 300) => text.replace(/\s+/g, ' ').trim().slice(0, max);
