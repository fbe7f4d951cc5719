import type { RequestHandler, Response } from 'express';
import { withFirstTransactionHook } from '../db/database.js';
import { trySessionLock, type SessionLock } from '../db/session-locks.js';
import { clock } from '../lib/clock.js';
import { recordingAccess, type AccessCheck } from '../lib/access-record.js';
import { AppError } from '../lib/errors.js';
import { recheckAccess } from '../lib/scope.js';
import { sendError } from './errors.js';
import { authenticatedCaller, requestFingerprint } from './idempotency-request.js';
import { sendReplayRefusal } from './idempotency-refusal.js';
import {
  KEEP_MS,
  claimKey,
  deleteExpiredKey,
  forgetUnlessCommitted,
  markWorkCommitted,
  readKey,
  responseBodyOf,
  storeResponse,
} from './idempotency-store.js';

/** The bytes of a chunk given to res.write/end: a Buffer, any Uint8Array (tRPC writes those) or a string. */
function bytesOf(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
}

function captureAndStore(res: Response, caller: string, key: string, lock: SessionLock, checks: Map<string, AccessCheck>): void {
  const chunks: Buffer[] = [];
  const origWrite = res.write.bind(res) as (...a: unknown[]) => boolean;
  const origEnd = res.end.bind(res) as (...a: unknown[]) => Response;
  const collect = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(Buffer.from(bytesOf(chunk, encoding))); // a copy: the writer may reuse its array
  };
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    collect(chunk, rest[0]);
    return origWrite(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    collect(chunk, rest[0]);
    const finish = () => {
      origEnd(chunk, ...rest);
      void lock.release();
    };
    // a 401 (the session ended while the request ran) stores nothing either: its caller was nobody
    const stored =
      res.statusCode >= 500 || res.statusCode === 401
        ? forgetUnlessCommitted(caller, key)
        : storeResponse(caller, key, {
            status: res.statusCode,
            body: Buffer.concat(chunks).toString('utf8'),
            type: String(res.getHeader('Content-Type') ?? 'application/json'),
            accessChecks: [...checks.values()],
          });
    stored.then(finish, finish);
    return res;
  }) as typeof res.end;
}

/**
 * CONTRACT §1: a POST with Idempotency-Key is done once per (caller, key) for 24 h;
 * a repeat of the same request replays the first response, anything else is a 409.
 * Only an authenticated caller has keys: a request that fails authentication goes on to its
 * route (401) without reading or storing anything, so nothing is replayed to a logged-out session,
 * an expired token or a revoked API key. A replay is also refused (403/404, as a new call would
 * be) when the caller no longer passes an access check the first request passed: its permission,
 * workspace membership or project reach (recorded by lib/scope.ts while the request ran).
 * Stored responses are sealed (idempotency-store.ts).
 *
 * The request that runs holds a session advisory lock on (caller, key) until its response is
 * stored, so a RUNNING row nobody holds was left by a process (or database) that died. Its work
 * ran again only if none of it committed (`work_committed`, set in the work's own transaction);
 * otherwise the key answers 409, since the first response is lost and repeating the work is not
 * allowed.
 */
export const idempotency: RequestHandler = async (req, res, next) => {
  const key = req.get('Idempotency-Key');
  if (req.method !== 'POST' || key === undefined) return next();
  let lock: SessionLock | null = null;
  try {
    if (key.length < 1 || key.length > 255) throw new AppError('BAD_REQUEST', 'Idempotency-Key must be 1..255 characters');
    const who = await authenticatedCaller(req);
    if (!who) return next();
    const { caller } = who;
    const path = req.originalUrl;
    const requestHash = await requestFingerprint(req);
    lock = await trySessionLock(`idempotency:${caller}:${key}`);
    for (let attempt = 0; attempt < 2; attempt++) {
      const row = await readKey(caller, key);
      if (!row) {
        if (!lock) throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
        if (!(await claimKey(caller, key, req.method, path, requestHash))) continue;
      } else {
        if (row.created_at.getTime() < clock.now().getTime() - KEEP_MS) {
          await deleteExpiredKey(caller, key, row.created_at);
          continue;
        }
        if (row.method !== req.method || row.path !== path || row.request_hash !== requestHash) {
          throw new AppError('CONFLICT', 'Idempotency-Key was already used for a different request');
        }
        if (row.state === 'DONE') {
          await lock?.release();
          lock = null;
          if (who.actor) {
            try {
              recheckAccess(who.actor, row.access_checks ?? []);
            } catch (err) {
              return sendReplayRefusal(req, res, err);
            }
          }
          const body = responseBodyOf(caller, key, row);
          res.status(row.response_status).setHeader('Idempotency-Replayed', 'true');
          res.setHeader('Content-Type', row.response_type ?? 'application/json');
          res.end(body);
          return;
        }
        if (!lock) throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
        if (row.work_committed) {
          throw new AppError('CONFLICT', 'A request with this Idempotency-Key did its work, but its response was lost');
        }
        // RUNNING, nobody holds it and nothing committed: left by a process that died; run it now
      }
      const held = lock;
      const checks = new Map<string, AccessCheck>();
      captureAndStore(res, caller, key, held, checks);
      lock = null; // released once the response is stored
      return recordingAccess(checks, () => withFirstTransactionHook(markWorkCommitted(caller, key), () => next()));
    }
    throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
  } catch (err) {
    await lock?.release();
    sendError(res, err);
  }
};
