import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { runtime } from '../runtime.js';
import { AppError } from '../lib/errors.js';
import { sendError } from './errors.js';

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** X-Request-Id on every response (echoed when the caller sent a sane one), and an access log line. */
export const requestContext: RequestHandler = (req, res, next) => {
  const incoming = req.get('X-Request-Id');
  const requestId = incoming && VALID_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    runtime().logger.info(
      { requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 },
      'request',
    );
  });
  next();
};

/**
 * trpc-to-openapi answers 415 to a POST without a JSON content type, but several of
 * our writes take no body at all (refresh, assign, approve …): treat an empty body as {}.
 */
export const emptyBodyIsJson: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
  if (!hasBody && ['POST', 'PATCH', 'PUT', 'DELETE'].includes(req.method)) {
    req.headers['content-type'] = 'application/json';
    req.body = req.method === 'DELETE' ? undefined : {};
  }
  next();
};

function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([k, v]) => k.includes('\u0000') || containsNul(v, depth + 1));
}

export const MAX_JSON_DEPTH = 64;

export function nestedDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit === 0) return true;
  return Object.values(value).some((v) => nestedDeeperThan(v, limit - 1));
}

/**
 * A JSON body nested deeper than any schema of the service is refused up front: tRPC
 * re-serialises bodies and would overflow the stack on thousands of levels (a 500).
 */
export const rejectDeepJson: RequestHandler = (req, res, next) => {
  if (nestedDeeperThan(req.body, MAX_JSON_DEPTH)) {
    return sendError(res, new AppError('BAD_REQUEST', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`));
  }
  next();
};

/**
 * PostgreSQL text cannot hold NUL: refuse it up front rather than store something else.
 * Ingest is exempt: there each item is judged on its own (a NUL makes that item an ERROR).
 */
export const rejectNulCharacters: RequestHandler = (req, res, next) => {
  if (req.path === '/api/v1/ingest') return next();
  if (containsNul(req.body) || req.originalUrl.includes('%00')) {
    return sendError(res, new AppError('BAD_REQUEST', 'Text must not contain NUL characters'));
  }
  next();
};
