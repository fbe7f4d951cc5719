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
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * Every failure of a call to the service, over REST and tRPC alike: a non-2xx answer (one of the
 * subclasses below, chosen by status) or a request that got no answer (`ConnectionError`).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues?: unknown[];
  /** The `X-Request-Id` of the failed response, for support requests and log searches. */
  requestId?: string;
  /** Seconds to wait before retrying, from `Retry-After` (429 and 503 answers). */
  retryAfterSeconds?: number;

  constructor(status: number, code: string, message: string, issues?: unknown[], options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    if (issues !== undefined) this.issues = issues;
  }

  /** Builds the error from a failed response, tolerating bodies that are not the service's shape. */
  static async fromResponse(res: Response): Promise<ApiError> {
    const fallbackMessage = res.statusText || `Request failed with status ${res.status}`;
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      body = undefined;
    }
    const b = (typeof body === 'object' && body !== null ? body : {}) as Partial<Record<keyof ErrorBody, unknown>>;
    const error = errorFor(
      res.status,
      typeof b.code === 'string' ? b.code : undefined,
      typeof b.message === 'string' ? b.message : fallbackMessage,
      Array.isArray(b.issues) ? b.issues : undefined,
    );
    return withHeaders(error, res.headers);
  }
}

/** 400: the request failed its schema or a rule visible from the request alone; `issues` says where. */
export class ValidationError extends ApiError {}
/** 401: no valid token or API key (bad login, expired, revoked). */
export class AuthenticationError extends ApiError {}
/** 403: authenticated, but without the permission or the workspace membership the call needs. */
export class PermissionError extends ApiError {}
/** 404: absent, or not visible to the caller. */
export class NotFoundError extends ApiError {}
/** 409: conflicts with stored state (voided entry, closed period, an Idempotency-Key in use, …). */
export class ConflictError extends ApiError {}
/** 413: upload or body over its limit. */
export class PayloadTooLargeError extends ApiError {}
/** 415: the uploaded file's type is not accepted. */
export class UnsupportedMediaTypeError extends ApiError {}
/** 429: rate limited; `retryAfterSeconds` says when to come back. */
export class RateLimitError extends ApiError {}
/** 5xx: the service failed (503: unavailable for now, e.g. during a database failover). */
export class ServerError extends ApiError {}
/**
 * No answer: the network failed or the request timed out (`code` is `CONNECTION_ERROR` or
 * `TIMEOUT`, `status` is 0). The original failure is the `cause`.
 */
export class ConnectionError extends ApiError {
  constructor(code: 'CONNECTION_ERROR' | 'TIMEOUT', message: string, cause?: unknown) {
    super(0, code, message, undefined, { cause });
  }
}

type ErrorClass = new (status: number, code: string, message: string, issues?: unknown[]) => ApiError;

const CLASS_BY_STATUS: Record<number, ErrorClass> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  429: RateLimitError,
};

/** The error of a non-2xx answer: the subclass its status names, else ServerError or ApiError. */
export function errorFor(status: number, code: string | undefined, message: string, issues?: unknown[]): ApiError {
  const Class = CLASS_BY_STATUS[status] ?? (status >= 500 ? ServerError : ApiError);
  const fallbackCode = CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'HTTP_ERROR');
  return new Class(status, code ?? fallbackCode, message, issues);
}

function withHeaders(error: ApiError, headers: Headers | undefined): ApiError {
  const requestId = headers?.get('x-request-id');
  if (requestId) error.requestId = requestId;
  const retryAfter = retryAfterSeconds(headers?.get('retry-after') ?? null);
  if (retryAfter !== undefined) error.retryAfterSeconds = retryAfter;
  return error;
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Reads any error of a call as an ApiError: an ApiError as it is, a tRPC client error (whose
 * `data` the service fills with code, httpStatus and issues) as the subclass of its status, a
 * tRPC error caused by a ConnectionError as that error. Returns undefined for anything else.
 * The SDK's own tRPC client already throws these; this is for errors caught elsewhere.
 */
export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (!(err instanceof Error)) return undefined;
  if (err.cause instanceof ApiError) return err.cause;
  const meta = (err as { meta?: { response?: Response; responseJSON?: unknown } }).meta;
  const data = (err as { data?: unknown }).data;
  const d = (typeof data === 'object' && data !== null ? data : {}) as { code?: unknown; httpStatus?: unknown; issues?: unknown };
  let error: ApiError;
  if (typeof d.httpStatus === 'number' && typeof d.code === 'string') {
    error = errorFor(d.httpStatus, d.code, err.message, Array.isArray(d.issues) ? d.issues : undefined);
  } else if (meta?.response && !meta.response.ok) {
    // an answer outside tRPC's envelope (the Idempotency-Key check runs before tRPC): `{ message, code }`
    const body = (typeof meta.responseJSON === 'object' && meta.responseJSON !== null ? meta.responseJSON : {}) as Partial<ErrorBody>;
    const message = typeof body.message === 'string' ? body.message : err.message;
    error = errorFor(meta.response.status, typeof body.code === 'string' ? body.code : undefined, message);
  } else return undefined;
  return withHeaders(error, meta?.response?.headers);
}
