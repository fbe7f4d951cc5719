import type { RequestHandler, Response } from 'express';
import { withFirstTransactionHook } from '../db/database.js';
import { trySessionLock, type SessionLock } from '../db/session-locks.js';
import { clock } from '../lib/clock.js';
import { AppError } from '../lib/errors.js';
import { sendError } from './errors.js';
import { authenticatedCaller, requestFingerprint } from './idempotency-request.js';
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

function captureAndStore(res: Response, caller: string, key: string, lock: SessionLock): void {
  const chunks: Buffer[] = [];
  const origWrite = res.write.bind(res) as (...a: unknown[]) => boolean;
  const origEnd = res.end.bind(res) as (...a: unknown[]) => Response;
  const collect = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    // tRPC's adapter writes Uint8Arrays (not Buffers): String() of one would store "123,34,…"
    if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    else chunks.push(Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
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
 * an expired token or a revoked API key. Stored responses are sealed (idempotency-store.ts).
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
    const caller = await authenticatedCaller(req);
    if (!caller) return next();
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
          const body = responseBodyOf(caller, key, row);
          await lock?.release();
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
      captureAndStore(res, caller, key, held);
      lock = null; // released once the response is stored
      return withFirstTransactionHook(markWorkCommitted(caller, key), () => next());
    }
    throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
  } catch (err) {
    await lock?.release();
    sendError(res, err);
  }
};
