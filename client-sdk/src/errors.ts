/** The service's error body: `{ message, code, issues? }`. */
export type ErrorBody = { message: string; code: string; issues?: unknown[] };

const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
};

/** A non-2xx answer from the service. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues?: unknown[];
  /** The `X-Request-Id` of the failed response, for support requests and log searches. */
  requestId?: string;
  /** Seconds to wait before retrying, from `Retry-After` (429 answers). */
  retryAfterSeconds?: number;

  constructor(status: number, code: string, message: string, issues?: unknown[]) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    if (issues !== undefined) this.issues = issues;
  }

  /** Builds the error from a failed response, tolerating bodies that are not the service's shape. */
  static async fromResponse(res: Response): Promise<ApiError> {
    const error = await ApiError.fromBody(res);
    const requestId = res.headers.get('x-request-id');
    if (requestId) error.requestId = requestId;
    const retryAfter = Number(res.headers.get('retry-after') ?? Number.NaN);
    if (Number.isFinite(retryAfter) && retryAfter >= 0) error.retryAfterSeconds = retryAfter;
    return error;
  }

  private static async fromBody(res: Response): Promise<ApiError> {
    const fallbackCode = CODE_BY_STATUS[res.status] ?? (res.status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'HTTP_ERROR');
    const fallbackMessage = res.statusText || `Request failed with status ${res.status}`;
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      return new ApiError(res.status, fallbackCode, fallbackMessage);
    }
    const b = (typeof body === 'object' && body !== null ? body : {}) as Partial<Record<keyof ErrorBody, unknown>>;
    return new ApiError(
      res.status,
      typeof b.code === 'string' ? b.code : fallbackCode,
      typeof b.message === 'string' ? b.message : fallbackMessage,
      Array.isArray(b.issues) ? b.issues : undefined,
    );
  }
}

/**
 * Reads a tRPC client error (whose `data` the service fills with code, httpStatus and issues)
 * as an ApiError; returns undefined for anything else.
 */
export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (!(err instanceof Error)) return undefined;
  const data = (err as { data?: unknown }).data;
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as { code?: unknown; httpStatus?: unknown; issues?: unknown };
  if (typeof d.httpStatus !== 'number' || typeof d.code !== 'string') return undefined;
  return new ApiError(d.httpStatus, d.code, err.message, Array.isArray(d.issues) ? d.issues : undefined);
}
