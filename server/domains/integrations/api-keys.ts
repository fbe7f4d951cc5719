import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_PREFIX = 'fes_live_';
const VISIBLE_CHARS = 8;
const SECRET_CHARS = 40; // 40 base62 characters ≈ 238 bits
const KEY_FORMAT = /^fes_live_[A-Za-z0-9]{8}_[A-Za-z0-9]{40}$/;

/** Uniform base62 characters from the CSPRNG (rejection sampling, no modulo bias). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export type NewApiKey = { key: string; prefix: string; hash: string };

/** SHA-256 (hex) of the whole key: the only form of the key the database keeps. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** `fes_live_<8 visible chars>_<40 secret chars>`; the visible part is stored and listed as `keyPrefix`. */
export function newApiKey(): NewApiKey {
  const prefix = `${KEY_PREFIX}${randomBase62(VISIBLE_CHARS)}`;
  const key = `${prefix}_${randomBase62(SECRET_CHARS)}`;
  return { key, prefix, hash: hashApiKey(key) };
}

export const looksLikeApiKey = (value: string): boolean => KEY_FORMAT.test(value);
