import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { runtime } from '../runtime.js';
import { badRequest } from './errors.js';

/**
 * Opaque, signed keyset cursors (CONTRACT §18). A cursor names a position in one list: the
 * sort key and id of the last row of a page, and a digest of what the list was (workspace,
 * filters, sort). It is `base64url(JSON payload) . base64url(HMAC-SHA256)`, signed with a key
 * derived (HKDF) from the service's JWT secret for this purpose alone; it holds no secret. A
 * cursor that does not verify, or that belongs to another list, is a 400.
 */

const VERSION = 1;
const MAC_BYTES = 32;

type Payload = { v: number; s: string; k: string; i: number };
export type CursorPosition = { key: string; id: number };

let derived: { from: string; key: Buffer } | undefined;
function macKey(): Buffer {
  const secret = runtime().secrets.jwtSecret;
  if (derived?.from !== secret) {
    derived = { from: secret, key: Buffer.from(hkdfSync('sha256', secret, 'fes-page-cursor', 'entries list cursor v1', 32)) };
  }
  return derived.key;
}

const mac = (body: string) => createHmac('sha256', macKey()).update(body).digest();

/** A short digest of the list a cursor belongs to (any JSON-able description of it, in a fixed key order). */
export function listScope(list: unknown): string {
  return createHash('sha256').update(JSON.stringify(list)).digest('base64url').slice(0, 22);
}

export function encodeCursor(scope: string, at: CursorPosition): string {
  const payload: Payload = { v: VERSION, s: scope, k: at.key, i: at.id };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${mac(body).toString('base64url')}`;
}

const INVALID = 'Invalid cursor: pass the nextCursor of a page of this same list (same workspace, filters and sort)';

/** The position a cursor names, or a 400 when it is malformed, forged, tampered with or from another list. */
export function decodeCursor(cursor: string, scope: string): CursorPosition {
  const [body, sig, extra] = cursor.split('.');
  if (extra !== undefined || !body || !sig || !/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]+$/.test(sig)) throw badRequest(INVALID);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== MAC_BYTES || !timingSafeEqual(given, mac(body))) throw badRequest(INVALID);
  let payload: Payload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
  } catch {
    throw badRequest(INVALID);
  }
  if (
    payload?.v !== VERSION ||
    payload.s !== scope ||
    typeof payload.k !== 'string' ||
    !Number.isSafeInteger(payload.i) ||
    payload.i <= 0
  ) {
    throw badRequest(INVALID);
  }
  return { key: payload.k, id: payload.i };
}
