import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { QueryTypes } from 'sequelize';
import { db, withFirstTransactionHook, type Transaction } from '../db/database.js';
import { trySessionLock, type SessionLock } from '../db/session-locks.js';
import { clock } from '../lib/clock.js';
import { AppError } from '../lib/errors.js';
import { bearerToken, verifyAccessToken } from '../domains/auth/tokens.js';
import { sendError } from './errors.js';

const KEEP_MS = 24 * 3_600_000;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Whose key this is: the token's user, or the API key's hash. Unidentified callers get no idempotency. */
function callerOf(authorization: string | undefined, apiKey: string | undefined): string | undefined {
  const token = bearerToken(authorization);
  if (token) {
    try {
      return `user:${verifyAccessToken(token).sub}`;
    } catch {
      return undefined;
    }
  }
  return apiKey ? `key:${sha256(apiKey)}` : undefined;
}

type Row = {
  method: string;
  path: string;
  request_hash: string;
  state: string;
  response_status: number;
  response_body: string;
  response_type: string | null;
  work_committed: boolean;
  created_at: Date;
};

async function claim(caller: string, key: string, method: string, path: string, requestHash: string): Promise<boolean> {
  const rows = await db().query(
    `INSERT INTO idempotency_keys (caller, key, method, path, request_hash, state, created_at)
     VALUES (:caller, :key, :method, :path, :requestHash, 'RUNNING', :now)
     ON CONFLICT (caller, key) DO NOTHING RETURNING key`,
    { replacements: { caller, key, method, path, requestHash, now: clock.now() }, type: QueryTypes.SELECT },
  );
  return rows.length === 1;
}

const readRow = async (caller: string, key: string): Promise<Row | undefined> =>
  (
    await db().query<Row>('SELECT * FROM idempotency_keys WHERE caller = :caller AND key = :key', {
      replacements: { caller, key },
      type: QueryTypes.SELECT,
    })
  )[0];

/** Inside the request's first transaction: its work and this mark commit together, or neither does. */
const markWorkCommitted = (caller: string, key: string) => async (tx: Transaction) => {
  await db().query('UPDATE idempotency_keys SET work_committed = true WHERE caller = :caller AND key = :key', {
    replacements: { caller, key },
    transaction: tx,
  });
};

function captureAndStore(res: Response, caller: string, key: string, lock: SessionLock): void {
  const chunks: Buffer[] = [];
  const origWrite = res.write.bind(res) as (...a: unknown[]) => boolean;
  const origEnd = res.end.bind(res) as (...a: unknown[]) => Response;
  const collect = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(
      Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
    );
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
    // a 5xx is not kept (the key may be retried), unless its work committed: running it again would repeat that work
    const stored =
      res.statusCode >= 500
        ? db().query('DELETE FROM idempotency_keys WHERE caller = :caller AND key = :key AND NOT work_committed', {
            replacements: { caller, key },
          })
        : db().query(
            `UPDATE idempotency_keys SET state = 'DONE', response_status = :status, response_body = :body, response_type = :type
              WHERE caller = :caller AND key = :key`,
            {
              replacements: {
                caller,
                key,
                status: res.statusCode,
                body: Buffer.concat(chunks).toString('utf8'),
                type: String(res.getHeader('Content-Type') ?? 'application/json'),
              },
            },
          );
    stored.then(finish, finish);
    return res;
  }) as typeof res.end;
}

/**
 * CONTRACT §1: a POST with Idempotency-Key is done once per (caller, key) for 24 h;
 * a repeat of the same request replays the first response, anything else is a 409.
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
    const caller = callerOf(req.get('Authorization'), req.get('X-API-Key'));
    if (!caller) return next();
    const path = req.originalUrl;
    const requestHash = sha256(JSON.stringify([req.method, path, req.body ?? null, req.get('content-length') ?? '']));
    lock = await trySessionLock(`idempotency:${caller}:${key}`);
    for (let attempt = 0; attempt < 2; attempt++) {
      const row = await readRow(caller, key);
      if (!row) {
        if (!lock) throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
        if (!(await claim(caller, key, req.method, path, requestHash))) continue;
      } else {
        if (row.created_at.getTime() < clock.now().getTime() - KEEP_MS) {
          await db().query('DELETE FROM idempotency_keys WHERE caller = :caller AND key = :key AND created_at = :at', {
            replacements: { caller, key, at: row.created_at },
          });
          continue;
        }
        if (row.method !== req.method || row.path !== path || row.request_hash !== requestHash) {
          throw new AppError('CONFLICT', 'Idempotency-Key was already used for a different request');
        }
        if (row.state === 'DONE') {
          await lock?.release();
          res.status(row.response_status).setHeader('Idempotency-Replayed', 'true');
          res.setHeader('Content-Type', row.response_type ?? 'application/json');
          res.end(row.response_body);
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
