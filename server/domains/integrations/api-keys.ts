import { randomBase62, sha256Hex } from '../../lib/key-material.js';

const KEY_PREFIX = 'fes_live_';
const VISIBLE_CHARS = 8;
const SECRET_CHARS = 40; // 40 base62 characters ≈ 238 bits
const KEY_FORMAT = /^fes_live_[A-Za-z0-9]{8}_[A-Za-z0-9]{40}$/;

export type NewApiKey = { key: string; prefix: string; hash: string };

/** SHA-256 (hex) of the whole key: the only form of the key the database keeps. */
export const hashApiKey = (key: string): string => sha256Hex(key);

/** `fes_live_<8 visible chars>_<40 secret chars>`; the visible part is stored and listed as `keyPrefix`. */
export function newApiKey(): NewApiKey {
  const prefix = `${KEY_PREFIX}${randomBase62(VISIBLE_CHARS)}`;
  const key = `${prefix}_${randomBase62(SECRET_CHARS)}`;
  return { key, prefix, hash: hashApiKey(key) };
}

export const looksLikeApiKey = (value: string): boolean => KEY_FORMAT.test(value);
