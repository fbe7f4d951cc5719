import { createHmac, generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { clock } from '../../../server/lib/clock.js';
import { REFRESH_GRACE_SECONDS } from '../../../server/domains/auth/tokens.js';
import { runtime } from '../../../server/runtime.js';

/**
 * Access tokens crafted by hand (CONTRACT §4: HS256 pinned, sub/sid/iat/exp/iss/aud). Each
 * forgery changes ONE property of an otherwise valid token of a real, live session, so a 401
 * can only come from the check of that property; `genuine` builds the same token unchanged.
 */

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

export type Identity = { sub: string; sid: string };

type Claims = Record<string, unknown>;

function claimsOf(who: Identity, overrides: Claims = {}): Claims {
  const iat = clock.nowSeconds();
  const { JWT_ISSUER, JWT_AUDIENCE } = runtime().config;
  return { sub: who.sub, sid: who.sid, iat, exp: iat + 900, iss: JWT_ISSUER, aud: JWT_AUDIENCE, ...overrides };
}

const secret = () => runtime().secrets.jwtSecret;

/** Signed by hand (jsonwebtoken would refuse some of these payloads and keys). */
function hs(claims: Claims, key: string | Buffer = secret(), algorithm: 'HS256' | 'HS384' | 'HS512' = 'HS256'): string {
  const input = `${b64({ alg: algorithm, typ: 'JWT' })}.${b64(claims)}`;
  const signature = createHmac(`sha${algorithm.slice(2)}`, key)
    .update(input)
    .digest('base64url');
  return `${input}.${signature}`;
}

/** The claims without one of them. */
function without(claims: Claims, name: string): Claims {
  const copy = { ...claims };
  delete copy[name];
  return copy;
}

/** A token whose payload was edited after signing (the signature is the original one). */
function tampered(token: string, edit: (payload: Claims) => Claims): string {
  const [header, payload, signature] = token.split('.');
  const edited = edit(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims);
  if (b64(edited) === payload) throw new Error('the tampering changed nothing');
  return `${header}.${b64(edited)}.${signature}`;
}

let rsa: { privateKey: string } | undefined;
const rsaKey = () =>
  (rsa ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  })).privateKey;

export const genuine = (who: Identity): string => hs(claimsOf(who));

/** `issue`: one of the attacks issue 10 names (the fast suite runs those; the long one runs all). */
export type Forgery = { name: string; issue?: boolean; token: (who: Identity, other: Identity) => string };

/** Every forgery: each must be refused (401) on every protected route, refresh included. */
export const FORGERIES: Forgery[] = [
  { name: 'alg none, no signature', issue: true, token: (w) => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claimsOf(w))}.` },
  { name: 'alg NONE, no signature', token: (w) => `${b64({ alg: 'NONE', typ: 'JWT' })}.${b64(claimsOf(w))}.` },
  {
    name: 'alg none header on a genuine HS256 signature',
    token: (w) => {
      const [, payload, signature] = genuine(w).split('.');
      return `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.${signature}`;
    },
  },
  {
    name: 'HS256 signed with another secret',
    issue: true,
    token: (w) => hs(claimsOf(w), 'another-secret-of-the-same-length-as-a-real-one!!'),
  },
  { name: 'HS256 signed with an empty secret', token: (w) => hs(claimsOf(w), Buffer.alloc(0)) },
  { name: 'HS512 with the real secret (algorithm not pinned?)', issue: true, token: (w) => hs(claimsOf(w), secret(), 'HS512') },
  { name: 'HS384 with the real secret', token: (w) => hs(claimsOf(w), secret(), 'HS384') },
  { name: 'RS256 signed with an attacker RSA key', issue: true, token: (w) => jwt.sign(claimsOf(w), rsaKey(), { algorithm: 'RS256' }) },
  { name: 'no exp', issue: true, token: (w) => hs(without(claimsOf(w), 'exp')) },
  { name: 'exp not a number', token: (w) => hs(claimsOf(w, { exp: `${clock.nowSeconds() + 900}` })) },
  {
    name: 'expired beyond the refresh grace',
    issue: true,
    token: (w) => hs(claimsOf(w, { iat: clock.nowSeconds() - 2000, exp: clock.nowSeconds() - REFRESH_GRACE_SECONDS - 2 })),
  },
  { name: 'wrong iss', issue: true, token: (w) => hs(claimsOf(w, { iss: 'someone-else' })) },
  { name: 'no iss', token: (w) => hs(without(claimsOf(w), 'iss')) },
  { name: 'wrong aud', issue: true, token: (w) => hs(claimsOf(w, { aud: 'another-api' })) },
  { name: 'no aud', token: (w) => hs(without(claimsOf(w), 'aud')) },
  { name: 'no sid', token: (w) => hs(without(claimsOf(w), 'sid')) },
  { name: 'no sub', token: (w) => hs(without(claimsOf(w), 'sub')) },
  { name: 'sid of another user’s live session (real secret)', token: (w, o) => hs(claimsOf({ sub: w.sub, sid: o.sid })) },
  {
    name: 'tampered payload: sub switched to another user',
    issue: true,
    token: (w, o) => tampered(genuine(w), (p) => ({ ...p, sub: o.sub })),
  },
  { name: 'tampered payload: exp extended by a day', token: (w) => tampered(genuine(w), (p) => ({ ...p, exp: Number(p.exp) + 86_400 })) },
  { name: 'signature stripped', token: (w) => `${genuine(w).split('.').slice(0, 2).join('.')}.` },
  { name: 'not a JWT', token: () => 'definitely-not-a-jwt' },
];

/** Expired a second ago: refused everywhere except by refresh, which still takes it (CONTRACT §4 grace). */
export const expiredWithinGrace = (who: Identity): string =>
  hs(claimsOf(who, { iat: clock.nowSeconds() - 901, exp: clock.nowSeconds() - 1 }));

export const sessionOf = (token: string): Identity => {
  const claims = jwt.decode(token) as jwt.JwtPayload;
  return { sub: String(claims.sub), sid: String(claims.sid) };
};
