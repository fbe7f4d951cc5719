import { randomBase62, sha256Hex } from '../../../lib/key-material.js';

const VISIBLE_CHARS = 8;
/** 43 base62 characters carry 256 bits: 32 random bytes (CONTRACT §19) */
const SECRET_CHARS = 43;
const KEY_FORMAT = /^fes_app_[A-Za-z0-9]{8}_[A-Za-z0-9]{43}$/;

/** SHA-256 (hex) of the whole key: the only form of it the database keeps (the key carries 256 random bits). */
export const hashAppKey = (key: string): string => sha256Hex(key);

/**
 * `fes_app_<8 visible>_<43 secret>`: a fixed, recognisable shape for secret scanners (the
 * integrations' ingest keys are `fes_live_…`, so neither is taken for the other).
 */
export function newAppKey(): { key: string; prefix: string; hash: string } {
  const prefix = `fes_app_${randomBase62(VISIBLE_CHARS)}`;
  const key = `${prefix}_${randomBase62(SECRET_CHARS)}`;
  return { key, prefix, hash: hashAppKey(key) };
}

export const looksLikeAppKey = (value: string): boolean => KEY_FORMAT.test(value);

/** What a bearer token that is meant as an app key starts with (it is then never read as a JWT). */
export const isAppKeyShaped = (token: string): boolean => token.startsWith('fes_');
