import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { runtime } from '../runtime.js';

/** Encryption keys by id; the first one encrypts, any of them decrypts (CREDENTIALS_KEYS). */
export type Keyring = readonly { kid: string; key: Buffer }[];

/** One AES-256-GCM ciphertext with everything needed to open it again, except the key and the AAD. */
export type Sealed = { ciphertext: Buffer; iv: Buffer; tag: Buffer; kid: string };

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

/** The process's keys, from CREDENTIALS_KEYS (or the embedded default). */
export const activeKeyring = (): Keyring => runtime().secrets.credentialsKeys;

/**
 * Encrypts under the first key of the ring. `aad` (additional authenticated data) binds the
 * ciphertext to where it is stored, e.g. `connection:<id>:credentials`: copied to another row
 * or column it no longer opens.
 */
export function seal(plaintext: string, aad: string, keys: Keyring = activeKeyring()): Sealed {
  const current = keys[0];
  if (!current) throw new Error('no encryption key configured');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, current.key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext, iv, tag: cipher.getAuthTag(), kid: current.kid };
}

/** Decrypts with the key named by `sealed.kid`; throws when the key is unknown or the data or AAD do not match. */
export function open(sealed: Sealed, aad: string, keys: Keyring = activeKeyring()): string {
  const entry = keys.find((k) => k.kid === sealed.kid);
  if (!entry) throw new Error(`no key with id "${sealed.kid}" in CREDENTIALS_KEYS`);
  const decipher = createDecipheriv(ALGORITHM, entry.key, sealed.iv);
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
}

export const sealJson = (value: unknown, aad: string, keys?: Keyring): Sealed => seal(JSON.stringify(value), aad, keys);

export const openJson = <T = unknown>(sealed: Sealed, aad: string, keys?: Keyring): T => JSON.parse(open(sealed, aad, keys)) as T;
