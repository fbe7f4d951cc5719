import { randomBytes } from 'node:crypto';
import { open, seal, type Keyring, type Sealed } from '../../lib/crypto.js';
import { clock } from '../../lib/clock.js';

/**
 * Signing secrets of endpoints (CONTRACT §15): `whsec_` + base64 of 32 random bytes, sealed with
 * AES-256-GCM under the current CREDENTIALS_KEYS key id (server/lib/crypto.ts). The additional
 * authenticated data names the endpoint and the column, so a ciphertext copied elsewhere does not
 * open. The secret replaced by a rotation keeps signing, beside the new one, for 24 hours.
 */

export const SECRET_PREFIX = 'whsec_';
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const newSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

export type SecretColumns = {
  secret_ciphertext: Buffer;
  secret_iv: Buffer;
  secret_tag: Buffer;
  secret_kid: string;
  previous_secret_ciphertext: Buffer | null;
  previous_secret_iv: Buffer | null;
  previous_secret_tag: Buffer | null;
  previous_secret_kid: string | null;
  secret_rotated_at: Date | null;
};

const aad = (endpointId: string, which: 'secret' | 'previous_secret') => `webhook_endpoint:${endpointId}:${which}`;

/** Column values of a sealed secret, for INSERT/UPDATE replacements. */
export function sealedSecretColumns(endpointId: string, secret: string, which: 'secret' | 'previous_secret' = 'secret', keys?: Keyring) {
  const s = seal(secret, aad(endpointId, which), keys);
  return { [`${which}_ciphertext`]: s.ciphertext, [`${which}_iv`]: s.iv, [`${which}_tag`]: s.tag, [`${which}_kid`]: s.kid };
}

/** The current secret, decrypted (for signing only: never for a response after creation, never for a log line). */
export const openSecret = (endpointId: string, row: SecretColumns, keys?: Keyring): string =>
  open({ ciphertext: row.secret_ciphertext, iv: row.secret_iv, tag: row.secret_tag, kid: row.secret_kid }, aad(endpointId, 'secret'), keys);

/** The previous secret (kept after a rotation), decrypted, or null. */
export function openPreviousSecret(endpointId: string, row: SecretColumns, keys?: Keyring): string | null {
  if (!row.previous_secret_ciphertext) return null;
  const sealed: Sealed = {
    ciphertext: row.previous_secret_ciphertext,
    iv: row.previous_secret_iv!,
    tag: row.previous_secret_tag!,
    kid: row.previous_secret_kid!,
  };
  return open(sealed, aad(endpointId, 'previous_secret'), keys);
}

/** The secrets a delivery is signed with: the current one, then the previous one within 24 h of a rotation. */
export function signingSecrets(endpointId: string, row: SecretColumns, now: Date = clock.now()): string[] {
  const secrets = [openSecret(endpointId, row)];
  const rotatedAt = row.secret_rotated_at;
  if (rotatedAt && now.getTime() - rotatedAt.getTime() < ROTATION_OVERLAP_MS) {
    const previous = openPreviousSecret(endpointId, row);
    if (previous) secrets.push(previous);
  }
  return secrets;
}
