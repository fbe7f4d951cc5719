import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { clock } from '../../lib/clock.js';
import { unauthorized } from '../../lib/errors.js';
import { runtime } from '../../runtime.js';

export const ACCESS_TOKEN_SECONDS = 15 * 60;
export const REFRESH_GRACE_SECONDS = 7 * 60;

let cachedKey: { secret: string; key: KeyObject } | undefined;

/**
 * The HMAC key as a KeyObject, made once: given a string, jsonwebtoken first tries it as a
 * public key (which throws) on every verify — about an eighth of a request's CPU.
 */
function signingKey(): KeyObject {
  const { jwtSecret } = runtime().secrets;
  if (cachedKey?.secret !== jwtSecret) cachedKey = { secret: jwtSecret, key: createSecretKey(Buffer.from(jwtSecret, 'utf8')) };
  return cachedKey.key;
}

export type TokenClaims = { sub: string; sid: string; iat: number; exp: number };

/**
 * Tokens whose signature, algorithm, issuer, audience and claims were checked already, under the
 * key and settings they were checked with: the same token string (every request of a client
 * carries the same one for 15 minutes) then needs only its expiry compared with the clock again.
 * Bounded; emptied whole when full or when the key or settings change.
 */
const verified = new Map<string, TokenClaims>();
const VERIFIED_MAX = 10_000;
let verifiedUnder = '';

export function signAccessToken(userId: string, sessionId: string): string {
  const { JWT_ISSUER, JWT_AUDIENCE } = runtime().config;
  const iat = clock.nowSeconds();
  return jwt.sign({ sub: userId, sid: sessionId, iat, exp: iat + ACCESS_TOKEN_SECONDS }, signingKey(), {
    algorithm: 'HS256',
    issuer: JWT_ISSUER,
    audience: JWT_AUDIENCE,
  });
}

/**
 * Verifies signature (HS256 only), issuer, audience and the presence of exp/sub/sid.
 * `graceSeconds` lets refresh accept a token that expired that long ago.
 */
export function verifyAccessToken(token: string, graceSeconds = 0): TokenClaims {
  const { JWT_ISSUER, JWT_AUDIENCE } = runtime().config;
  const under = `${runtime().secrets.jwtSecret}\u0000${JWT_ISSUER}\u0000${JWT_AUDIENCE}`;
  if (under !== verifiedUnder) {
    verified.clear();
    verifiedUnder = under;
  }
  const known = verified.get(token);
  if (known) return live(known, graceSeconds);
  let payload: jwt.JwtPayload | string;
  try {
    payload = jwt.verify(token, signingKey(), {
      algorithms: ['HS256'],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      clockTimestamp: clock.nowSeconds(),
      clockTolerance: graceSeconds > 0 ? graceSeconds + 1 : 0,
      complete: false,
    }) as jwt.JwtPayload;
  } catch {
    throw unauthorized('Invalid or expired token');
  }
  if (
    typeof payload !== 'object' ||
    typeof payload.exp !== 'number' ||
    typeof payload.iat !== 'number' ||
    typeof payload.sub !== 'string' ||
    typeof payload.sid !== 'string'
  ) {
    throw unauthorized('Invalid or expired token');
  }
  const claims = live({ sub: payload.sub, sid: payload.sid, iat: payload.iat, exp: payload.exp }, graceSeconds);
  if (verified.size >= VERIFIED_MAX) verified.clear();
  verified.set(token, claims);
  return claims;
}

/** A token is live while now < exp; refresh also takes one whose exp passed at most `graceSeconds` ago. */
function live(claims: TokenClaims, graceSeconds: number): TokenClaims {
  const now = clock.nowSeconds();
  if (graceSeconds === 0 ? now >= claims.exp : now > claims.exp + graceSeconds) {
    throw unauthorized('Invalid or expired token');
  }
  return claims;
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(header.trim());
  return m?.[1];
}
