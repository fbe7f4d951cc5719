import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniform base62 characters from the CSPRNG (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/**
 * SHA-256 (hex) of a whole key: the only form of an API key the database keeps. A plain hash is
 * enough: the keys carry over 230 random bits, so there is nothing to guess a slow hash would slow.
 */
export const sha256Hex = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');
