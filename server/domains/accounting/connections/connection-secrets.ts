import { db, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { openJson, open, sealJson, seal, type Keyring, type Sealed } from '../../../lib/crypto.js';
import type { ConnectionRow } from './connection-rows.js';

/**
 * The secrets of a connection: `credentials` and `config.webhookSecret`, each sealed with
 * AES-256-GCM under a key id, with additional authenticated data naming the row and the
 * column it belongs to, so a ciphertext moved to another row or column does not open.
 */
export const credentialsAad = (connectionId: string) => `connection:${connectionId}:credentials`;
export const webhookSecretAad = (connectionId: string) => `connection:${connectionId}:webhookSecret`;

export type ConnectionCredentials = Record<string, unknown>;

/** Column values of a sealed secret, for INSERT/UPDATE replacements (`prefix` = credentials | webhook_secret). */
export function sealedColumns(prefix: 'credentials' | 'webhook_secret', sealed: Sealed | null): Record<string, Buffer | string | null> {
  return {
    [`${prefix}_ciphertext`]: sealed?.ciphertext ?? null,
    [`${prefix}_iv`]: sealed?.iv ?? null,
    [`${prefix}_tag`]: sealed?.tag ?? null,
    [`${prefix}_kid`]: sealed?.kid ?? null,
  };
}

export const sealCredentials = (connectionId: string, credentials: ConnectionCredentials, keys?: Keyring): Sealed =>
  sealJson(credentials, credentialsAad(connectionId), keys);

export const sealWebhookSecret = (connectionId: string, secret: string, keys?: Keyring): Sealed =>
  seal(secret, webhookSecretAad(connectionId), keys);

function sealedCredentialsOf(row: ConnectionRow): Sealed {
  return { ciphertext: row.credentials_ciphertext, iv: row.credentials_iv, tag: row.credentials_tag, kid: row.credentials_kid };
}

function sealedWebhookSecretOf(row: ConnectionRow): Sealed | null {
  if (!row.webhook_secret_ciphertext || !row.webhook_secret_iv || !row.webhook_secret_tag || !row.webhook_secret_kid) return null;
  return { ciphertext: row.webhook_secret_ciphertext, iv: row.webhook_secret_iv, tag: row.webhook_secret_tag, kid: row.webhook_secret_kid };
}

/** The decrypted credentials of a connection (for provider adapters; never for a response or a log line). */
export const readCredentials = (row: ConnectionRow, keys?: Keyring): ConnectionCredentials =>
  openJson<ConnectionCredentials>(sealedCredentialsOf(row), credentialsAad(row.id), keys);

/** The decrypted webhook secret, or null when none is set. */
export function readWebhookSecret(row: ConnectionRow, keys?: Keyring): string | null {
  const sealed = sealedWebhookSecretOf(row);
  return sealed ? open(sealed, webhookSecretAad(row.id), keys) : null;
}

/** Replaces the stored credentials (e.g. refreshed OAuth tokens), encrypted under the current key. */
export async function storeCredentials(tx: Transaction, connectionId: string, credentials: ConnectionCredentials): Promise<void> {
  await db().query(
    `UPDATE accounting_connections
        SET credentials_ciphertext = :credentials_ciphertext, credentials_iv = :credentials_iv, credentials_tag = :credentials_tag,
            credentials_kid = :credentials_kid, updated_at = :now
      WHERE id = :id`,
    {
      replacements: { id: connectionId, now: clock.now(), ...sealedColumns('credentials', sealCredentials(connectionId, credentials)) },
      transaction: tx,
    },
  );
}
