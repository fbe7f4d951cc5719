import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { clock } from '../lib/clock.js';
import { activeKeyring, type Keyring } from '../lib/crypto.js';
import { canonicalJson } from '../domains/entries/index.js';

/** How long a preview's confirmToken can be used (CONTRACT §20). */
export const CONFIRM_TTL_MS = 10 * 60_000;

/** Digest of a tool's exact arguments (keys in any order, `confirm` left out): what a token is bound to. */
export const argumentsDigest = (args: Record<string, unknown>): string =>
  createHash('sha256').update(canonicalJson(args)).digest('base64url');

type Claims = { p: string; t: string; a: string; exp: number; n: string };

/** A token's MAC key, derived per credentials key: the token carries which one (`kid`), so keys rotate as sealed data does. */
const macKey = (key: Buffer) => createHmac('sha256', key).update('mcp-confirm-token').digest();

const mac = (key: Buffer, body: string) => createHmac('sha256', macKey(key)).update(body).digest();

/** A signed token: this caller (`principal`) may run `tool` with exactly these arguments, until it expires. */
export function issueConfirmToken(principal: string, tool: string, args: Record<string, unknown>, keys: Keyring = activeKeyring()): string {
  const current = keys[0];
  if (!current) throw new Error('no credentials key configured');
  const claims: Claims = {
    p: principal,
    t: tool,
    a: argumentsDigest(args),
    exp: clock.now().getTime() + CONFIRM_TTL_MS,
    n: randomBytes(9).toString('base64url'),
  };
  const body = `${current.kid}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${mac(current.key, body).toString('base64url')}`;
}

export type TokenCheck = { ok: true } | { ok: false; reason: string };

/** Whether `token` was issued by this service for this caller, tool and arguments, and has not expired. */
export function checkConfirmToken(
  token: string,
  principal: string,
  tool: string,
  args: Record<string, unknown>,
  keys: Keyring = activeKeyring(),
): TokenCheck {
  const [kid, payload, signature, extra] = token.split('.');
  const key = keys.find((k) => k.kid === kid);
  if (!key || !payload || !signature || extra !== undefined) return { ok: false, reason: 'The confirmToken is not valid' };
  const expected = mac(key.key, `${kid}.${payload}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'The confirmToken is not valid' };
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims;
  if (claims.p !== principal || claims.t !== tool) return { ok: false, reason: 'The confirmToken was issued for another caller or tool' };
  if (claims.a !== argumentsDigest(args)) return { ok: false, reason: 'The arguments differ from those of the preview' };
  if (claims.exp <= clock.now().getTime()) return { ok: false, reason: 'The confirmToken has expired: preview again' };
  return { ok: true };
}
