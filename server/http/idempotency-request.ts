import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { AppError } from '../lib/errors.js';
import { runtime } from '../runtime.js';
import { bearerToken, requestActor } from '../domains/auth/index.js';
import { authenticateApiKey, hashApiKey } from '../domains/integrations/index.js';
import type { Actor } from '../lib/scope.js';
import { documentedQueryContract } from './route-templates.js';
import '../lib/raw-body.js';

/** An authenticated caller of a keyed request: its key space, and the live actor when it is one (not an ingest key). */
export type IdempotencyCaller = { caller: string; actor?: Actor };

/**
 * Whose key this is, authenticated as any call is: a live session's user (not merely a well-signed
 * token: a logged-out session or a deactivated user is nobody), or an active integration's API
 * key. Undefined when the request does not authenticate: it gets no idempotency, stores nothing,
 * and its route answers it (401) as it would without the header. A route with its own credential
 * (ingest) counts only that one: a bearer token it ignores does not key its requests.
 */
export async function authenticatedCaller(req: Request): Promise<IdempotencyCaller | undefined> {
  const authorization = req.get('Authorization');
  // a route that checks its own credential (ingest's X-API-Key) is not called by a bearer token it ignores
  const ownCredential = documentedQueryContract(req.method, req.path)?.credential === 'own';
  try {
    if (!ownCredential && bearerToken(authorization)) {
      const actor = await requestActor(req);
      return { caller: actor.apiKeyId ? `apikey:${actor.apiKeyId}` : `user:${actor.userId}`, actor };
    }
    const apiKey = req.get('X-API-Key');
    if (apiKey === undefined) return undefined;
    await authenticateApiKey(apiKey);
    return { caller: `key:${hashApiKey(apiKey)}` };
  } catch (err) {
    if (err instanceof AppError && err.code === 'UNAUTHORIZED') return undefined;
    throw err;
  }
}

/** Room for a multipart body's boundaries, part headers and small fields beyond the file itself. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** Reads the request's body stream whole (413 beyond `limit` bytes). */
function readWhole(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (err: unknown) => {
      req.off('data', onData);
      req.resume(); // drain the rest; the response says why
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) fail(new AppError('PAYLOAD_TOO_LARGE', `The body exceeds the upload limit of ${limit} bytes`));
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', fail);
  });
}

/**
 * SHA-256 of a multipart body with its boundary (which a client picks anew for each send) replaced
 * by a fixed token: two sends of the same parts and bytes hash alike, any other byte differs.
 */
function multipartDigest(body: Buffer, boundary: string | undefined): string {
  const hash = createHash('sha256');
  if (!boundary) return hash.update(body).digest('hex');
  const marker = Buffer.from(`--${boundary}`, 'latin1');
  let from = 0;
  for (let at = body.indexOf(marker, from); at !== -1; at = body.indexOf(marker, from)) {
    hash.update(body.subarray(from, at)).update('--<boundary>');
    from = at + marker.length;
  }
  return hash.update(body.subarray(from)).digest('hex');
}

const boundaryOf = (contentType: string | undefined) => /boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];

/**
 * What makes two requests "the same request" (CONTRACT §1): method, path and body. A JSON body
 * counts by its parsed value; a multipart body by its bytes, read here (and kept in `req.rawBody`
 * for the upload parser), never by its length.
 */
export async function requestFingerprint(req: Request): Promise<string> {
  // a body no parser here reads is refused by its route; its length stands in for it
  let body: unknown = req.body ?? { contentType: req.get('Content-Type') ?? '', contentLength: req.get('Content-Length') ?? '' };
  if (req.is('multipart/form-data')) {
    req.rawBody = await readWhole(req, runtime().config.UPLOAD_LIMIT_BYTES + MULTIPART_OVERHEAD_BYTES);
    body = { multipartSha256: multipartDigest(req.rawBody, boundaryOf(req.get('Content-Type'))) };
  }
  return createHash('sha256')
    .update(JSON.stringify([req.method, req.originalUrl, body]))
    .digest('hex');
}
