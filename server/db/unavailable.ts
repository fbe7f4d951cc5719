/**
 * What a lost or missing database is at the edge (CONTRACT §22): while there is no primary (it died,
 * a standby is being promoted, the one reached is read-only) a request that needs the database is
 * a 503 with Retry-After, never a 500. Read by the error presenter (lib/errors.ts knownError).
 */

/** Sequelize's connection errors (ConnectionError and its subclasses, the pool's acquire timeout). */
const SEQUELIZE_CONNECTION_ERRORS = new Set([
  'SequelizeConnectionError',
  'SequelizeConnectionRefusedError',
  'SequelizeConnectionTimedOutError',
  'SequelizeConnectionAcquireTimeoutError',
  'SequelizeHostNotFoundError',
  'SequelizeHostNotReachableError',
  'SequelizeInvalidConnectionError',
]);

/**
 * Node socket errors, NoPrimaryError (server/db/hosts.ts), and PostgreSQL's SQLSTATEs of a server
 * going away or not taking writes: class 08 (connection exception), 57P01 admin shutdown (a
 * demotion), 57P02 crash shutdown (another backend crashed), 57P03 cannot connect now (starting,
 * recovering), 25006 read-only transaction (reached a standby).
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOPRIMARY',
  '57P01',
  '57P02',
  '57P03',
  '25006',
]);

/** pg's own errors for a connection that is gone (they carry no code). */
const LOST_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout expired|Connection timed out|timeout exceeded when trying to connect)/;

/** The seconds a client is told to wait before it tries again while the database fails over. */
export const FAILOVER_RETRY_AFTER_SECONDS = 2;

/** Whether `err` (or what it wraps) says the database cannot be reached or takes no writes now. */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { name?: unknown; code?: unknown; message?: unknown; parent?: unknown; original?: unknown; cause?: unknown };
  if (typeof e.name === 'string' && SEQUELIZE_CONNECTION_ERRORS.has(e.name)) return true;
  if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code))) return true;
  if (typeof e.message === 'string' && LOST_CONNECTION.test(e.message) && !('code' in e && e.code)) return true;
  return [e.parent, e.original, e.cause].some((inner) => inner !== err && isDatabaseUnavailable(inner, depth + 1));
}
