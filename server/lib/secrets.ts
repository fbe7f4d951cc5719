import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Secrets } from '../runtime.js';

export function parseCredentialsKeys(spec: string): Secrets['credentialsKeys'] {
  return spec.split(',').map((part) => {
    const [kid, b64] = part.split(':');
    const key = Buffer.from(b64, 'base64');
    if (key.length !== 32) throw new Error(`CREDENTIALS_KEYS: key "${kid}" must be 32 bytes (base64)`);
    return { kid, key };
  });
}

/**
 * Secrets come from the environment; the embedded default generates them once and
 * keeps them in DATA_DIR (mode 0600) so tokens and ciphertexts survive restarts.
 */
export function resolveSecrets(config: Config): Secrets {
  let stored: { jwtSecret?: string; credentialsKeys?: string } = {};
  const file = path.resolve(config.DATA_DIR, 'secrets.json');
  if (config.embedded && (!config.JWT_SECRET || !config.CREDENTIALS_KEYS)) {
    if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8'));
    if (!stored.jwtSecret || !stored.credentialsKeys) {
      stored = {
        jwtSecret: stored.jwtSecret ?? randomBytes(48).toString('base64url'),
        credentialsKeys: stored.credentialsKeys ?? `k1:${randomBytes(32).toString('base64')}`,
      };
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    }
  }
  const jwtSecret = config.JWT_SECRET ?? stored.jwtSecret!;
  return { jwtSecret, credentialsKeys: parseCredentialsKeys(config.CREDENTIALS_KEYS ?? stored.credentialsKeys!) };
}
