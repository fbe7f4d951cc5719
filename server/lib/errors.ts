import { TRPCError } from '@trpc/server';
import type { z } from 'zod/v4';
import { ERROR_ISSUES_MAX, ERROR_MESSAGE_MAX } from '../../shared/contracts/common.js';
import { ERROR_TABLE, errorCodeOfTrpc, type ErrorCode } from './error-table.js';
import { FAILOVER_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/unavailable.js';

export { HTTP_STATUS, type ErrorCode } from './error-table.js';

/** A rule the service refuses with; its message is safe to show to the caller. */
export class AppError extends TRPCError {
  readonly headers?: Record<string, string>;
  /** Problems to list in the body's `issues` (e.g. the lines of a refused bank statement). */
  readonly issues?: unknown[];
  constructor(code: ErrorCode, message: string, opts: { headers?: Record<string, string>; cause?: unknown; issues?: unknown[] } = {}) {
    super({ code: ERROR_TABLE[code].trpcCodes[0], message, cause: opts.cause });
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
  if (!parent || typeof parent !== 'object') return undefined;
  const pgError = parent as { code?: string; constraint?: string; message?: string };
  if (pgError.constraint !== undefined || typeof pgError.message !== 'string') return pgError;
  const named = constraintInMessage(pgError.message);
  if (named === undefined) return pgError;
  // a row a Citus coordinator copied to a shard (INSERT … SELECT it could not push down) and the shard refused comes back as
  // XX000 (ReportCopyError): the service's own RAISEs keep their SQLSTATE there too
  const relayed = pgError.code === 'XX000' && RAISED_CODES.has(named) ? { code: RAISED_CODES.get(named) } : {};
  return Object.assign(pgError, { constraint: named }, relayed);
}

/**
 * Citus relays an error raised on a worker with its SQLSTATE, message, detail, hint and context, not its
 * constraint name (CONTRACT §24): the constraints the service tells apart are then known by their message,
 * the service's own RAISEs (server/db/sql-definitions.sql) by their wording, PostgreSQL's by the quoted
 * name, without the shard's id that Citus appends to it.
 */
const CONSTRAINT_MESSAGES: [RegExp, string][] = [
  [/^live \w+ entries of entry \d+ sum to /, 'entry_caps'],
  [/^entry \d+ is dated \S+ in the closed accounting period "/, 'entry_closed_period'],
  [/^journal transaction \d+ is dated \S+ in the closed accounting period "/, 'journal_closed_period'],
  [/^journal transaction \d+: its debits \(/, 'journal_balanced'],
  [/^journal line \d+: its date, kind or entry differ /, 'journal_balanced'],
  [/^the journal is append-only: /, 'journal_append_only'],
  [/^category \S+ is the account of a ledger role: /, 'ledger_role_active'],
  [/^bank match \S+: (its lines sum to|an entry is VOIDED)/, 'bank_match_balance'],
  [/^Entry \d+ is in bank match; /, 'entries_bank_match_guard'],
];

/** The SQLSTATE of each of the service's own RAISEs that CONSTRAINT_MESSAGES knows (server/db/sql-definitions.sql). */
const RAISED_CODES = new Map<string, string>([
  ...CONSTRAINT_MESSAGES.map(([, name]): [string, string] => [name, '23514']),
  ['entries_bank_match_guard', '23P01'],
]);

function constraintInMessage(message: string): string | undefined {
  const quoted = /violates (?:unique|foreign key|check|exclusion) constraint "(.+?)(?:_\d{6,})?"/.exec(message);
  if (quoted) return quoted[1];
  return CONSTRAINT_MESSAGES.find(([pattern]) => pattern.test(message))?.[1];
}

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

/**
 * trpc-to-openapi's 415 reads `Unsupported content-type "text/plain` (its closing quote is missing):
 * say it as a sentence with the remedy.
 */
function sentence(message: string): string {
  const unsupported = /^Unsupported content-type "(.*)$/s.exec(message);
  if (unsupported) return `Unsupported content type ${quotedValue(unsupported[1])}: send the body as application/json`;
  return message;
}

/**
 * A caller's value quoted inside a message: JSON-escaped (a backslash as \u005c, so no escape can
 * pass for the closing quote), backticks and curly quotes escaped too, and cut at 80 characters, so
 * the message stays a sentence whatever the caller sent.
 */
export function quotedValue(value: string): string {
  const cut = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  return JSON.stringify(cut)
    .replace(/\\\\/g, '\\u005c')
    .replace(/[`‘’“”]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

type Presented = { status: number; body: ErrorBody; headers?: Record<string, string> };

function presentUnbounded(err: unknown): Presented {
  const known = knownError(err);
  if (known) return presentAppError(known);
  if (err instanceof TRPCError) {
    const issues = zodIssuesOf(err);
    if (issues) return { status: 400, body: { message: 'Input validation failed', code: 'BAD_REQUEST', issues } };
    const code = errorCodeOfTrpc(err.code);
    if (!code || !ERROR_TABLE[code].expose) return internal();
    const headers = err instanceof AppError ? err.headers : undefined;
    const listed = err instanceof AppError ? err.issues : undefined;
    const status = ERROR_TABLE[code].status;
    const message = sentence(err.message);
    return { status, body: listed ? { message, code, issues: listed } : { message, code }, headers };
  }
  return internal();
}

function presentAppError(err: AppError): Presented {
  const code = errorCodeOfTrpc(err.code)!;
  return { status: ERROR_TABLE[code].status, body: { message: err.message, code }, headers: err.headers };
}

function internal(): Presented {
  return { status: 500, body: { message: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' } };
}

/** check violation, numeric out of range, bad text representation, bad datetime, NUL/invalid bytes in text */
const BAD_VALUE_CODES = new Set(['23514', '22003', '22P02', '22007', '22008', '22021', '22P05', '54000']);

/**
 * The client error a database error stands for (constraint errors reaching the edge are 4xx, never
 * 500s), or undefined when `err` is not one. For the tRPC procedures, whose status follows the
 * error's code, and for the presenter.
 */
export function knownError(err: unknown): AppError | undefined {
  const cause = err instanceof TRPCError && !(err instanceof AppError) ? err.cause : err;
  const name = (cause as Error | undefined)?.name;
  if (name === 'SequelizeUniqueConstraintError') return conflict('A conflicting record already exists');
  if (name === 'SequelizeForeignKeyConstraintError') return badRequest('A referenced record does not exist');
  const parent = (cause as { parent?: unknown } | undefined)?.parent;
  // raised while reading the rows (server/db/pg-types.ts) and wrapped by Sequelize
  if (parent instanceof AppError) return parent;
  // no primary right now (CONTRACT §22: failing over, or reached a read-only standby): come back shortly
  if (isDatabaseUnavailable(cause)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable (failing over); retry shortly', {
      headers: { 'Retry-After': String(FAILOVER_RETRY_AFTER_SECONDS) },
    });
  }
  const pgCode = postgresErrorOf(cause)?.code;
  if (pgCode === '23P01') return conflict('Conflicts with an existing record');
  // the ledger's money invariant, checked by PostgreSQL at commit (migration 0012)
  if (pgCode === '23514' && postgresErrorOf(cause)?.constraint === 'entry_caps') {
    return conflict('The refunds or reimbursements of an entry would exceed its amount');
  }
  // CONTRACT §7 and §14, held by PostgreSQL (migrations 0023, 0024): the service refuses first, with its own message
  if (pgCode === '23514' && postgresErrorOf(cause)?.constraint === 'entry_closed_period') {
    return conflict('The change would move the totals of a closed accounting period');
  }
  // CONTRACT §23 (migration 0045): a posting dated in a closed period; a role account deactivated
  if (pgCode === '23514' && postgresErrorOf(cause)?.constraint === 'journal_closed_period') {
    return conflict('The change would post to the books in a closed accounting period');
  }
  if (pgCode === '23514' && postgresErrorOf(cause)?.constraint === 'ledger_role_active') {
    return conflict('The category is the account of a ledger role and cannot be deactivated');
  }
  if (pgCode === '23514' && postgresErrorOf(cause)?.constraint === 'bank_match_balance') {
    return conflict('The change would leave a bank match unbalanced; delete the match first');
  }
  if (pgCode && BAD_VALUE_CODES.has(pgCode)) return badRequest('A value is out of range or malformed');
  return undefined;
}
