import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { z } from 'zod/v4';
import { ERROR_ISSUES_MAX, ERROR_MESSAGE_MAX } from '../../shared/contracts/common.js';

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR'
  | 'SERVICE_UNAVAILABLE';

export const HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

/** A rule the service refuses with; its message is safe to show to the caller. */
export class AppError extends TRPCError {
  readonly headers?: Record<string, string>;
  /** details shown as the body's `issues` (e.g. the bad lines of an imported file) */
  readonly issues?: unknown[];
  constructor(code: ErrorCode, message: string, opts: { headers?: Record<string, string>; cause?: unknown; issues?: unknown[] } = {}) {
    super({ code: code as TRPC_ERROR_CODE_KEY, message, cause: opts.cause });
    this.headers = opts.headers;
    this.issues = opts.issues;
  }
}

export const badRequest = (m: string) => new AppError('BAD_REQUEST', m);
export const unauthorized = (m = 'Authentication required') => new AppError('UNAUTHORIZED', m);
export const forbidden = (m = 'Permission denied') => new AppError('FORBIDDEN', m);
export const notFound = (what = 'Resource') => new AppError('NOT_FOUND', `${what} not found`);
export const conflict = (m: string) => new AppError('CONFLICT', m);

/** `value` as `schema` reads it, or a 400 with zod's issues (the body tRPC's input errors get). */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AppError('BAD_REQUEST', 'Input validation failed', { cause: parsed.error });
  return parsed.data;
}

export type ErrorBody = { message: string; code: string; issues?: unknown[] };

/** The PostgreSQL error behind a Sequelize error (its SQLSTATE and, for constraint errors, the constraint's name). */
export function postgresErrorOf(err: unknown): { code?: string; constraint?: string } | undefined {
  const parent = (err as { parent?: unknown } | undefined)?.parent;
  return parent && typeof parent === 'object' ? (parent as { code?: string; constraint?: string }) : undefined;
}

const statusByCode: Record<string, number> = {
  PARSE_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

function zodIssuesOf(err: unknown): unknown[] | undefined {
  const cause = err instanceof TRPCError ? err.cause : err;
  if (cause && typeof cause === 'object' && (cause as Error).name === 'ZodError') {
    return (cause as { issues: unknown[] }).issues;
  }
  return undefined;
}

/**
 * The one error presenter of the service: every error on every route becomes
 * {message, code, issues?} with its status. Unknown errors are masked.
 */
export function presentError(err: unknown): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  const presented = presentUnbounded(err);
  return { ...presented, body: bounded(presented.body) };
}

/** The documented limits of an error body (openapi.json): a message cut at ERROR_MESSAGE_MAX, the first ERROR_ISSUES_MAX issues. */
function bounded(body: ErrorBody): ErrorBody {
  const message = body.message.length > ERROR_MESSAGE_MAX ? `${body.message.slice(0, ERROR_MESSAGE_MAX - 1)}…` : body.message;
  const issues = body.issues && body.issues.length > ERROR_ISSUES_MAX ? body.issues.slice(0, ERROR_ISSUES_MAX) : body.issues;
  return issues ? { ...body, message, issues } : { ...body, message };
}

/**
 * Keeps the first ERROR_ISSUES_MAX issues of a validation error in the error itself: trpc-to-openapi
 * copies `error.cause.issues` into REST error bodies after the error formatter has run.
 */
export function boundValidationIssues(err: unknown): void {
  const cause = err instanceof TRPCError ? err.cause : err;
  if (cause && typeof cause === 'object' && (cause as Error).name === 'ZodError') {
    const issues = (cause as { issues: unknown[] }).issues;
    if (Array.isArray(issues) && issues.length > ERROR_ISSUES_MAX) issues.splice(ERROR_ISSUES_MAX);
  }
}

function presentUnbounded(err: unknown): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  const mapped = mapKnownError(err);
  if (mapped) return mapped;
  if (err instanceof TRPCError) {
    const issues = zodIssuesOf(err);
    if (issues) return { status: 400, body: { message: 'Input validation failed', code: 'BAD_REQUEST', issues } };
    const code = err.code === 'PARSE_ERROR' ? 'BAD_REQUEST' : err.code;
    const status = statusByCode[code] ?? 500;
    if (status >= 500 && code !== 'SERVICE_UNAVAILABLE') return internal(); // a 503 says why, with Retry-After
    const headers = err instanceof AppError ? err.headers : undefined;
    const own = err instanceof AppError ? err.issues : undefined;
    return { status, body: own ? { message: err.message, code, issues: own } : { message: err.message, code }, headers };
  }
  return internal();
}

function internal() {
  return { status: 500, body: { message: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' } };
}

/** check violation, numeric out of range, bad text representation, bad datetime, NUL/invalid bytes in text */
const BAD_VALUE_CODES = new Set(['23514', '22003', '22P02', '22007', '22008', '22021', '22P05', '54000']);

/** Database constraint errors that reach the edge become client errors, never 500s. */
function mapKnownError(err: unknown): { status: number; body: ErrorBody } | undefined {
  const cause = err instanceof TRPCError && !(err instanceof AppError) ? err.cause : err;
  const name = (cause as Error | undefined)?.name;
  if (name === 'SequelizeUniqueConstraintError') {
    return { status: 409, body: { message: 'A conflicting record already exists', code: 'CONFLICT' } };
  }
  if (name === 'SequelizeForeignKeyConstraintError') {
    return { status: 400, body: { message: 'A referenced record does not exist', code: 'BAD_REQUEST' } };
  }
  const parent = (cause as { parent?: unknown } | undefined)?.parent;
  if (parent instanceof AppError) {
    // raised while reading the rows (server/db/pg-types.ts) and wrapped by Sequelize
    return { status: HTTP_STATUS[parent.code as ErrorCode] ?? 500, body: { message: parent.message, code: parent.code } };
  }
  const pgCode = postgresErrorOf(cause)?.code;
  if (pgCode === '23P01') {
    return { status: 409, body: { message: 'Conflicts with an existing record', code: 'CONFLICT' } };
  }
  if (pgCode && BAD_VALUE_CODES.has(pgCode)) {
    return { status: 400, body: { message: 'A value is out of range or malformed', code: 'BAD_REQUEST' } };
  }
  return undefined;
}
