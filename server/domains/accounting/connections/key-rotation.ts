import { db, transaction } from '../../../db/database.js';
import { lockEveryRow } from '../../../db/distributed.js';
import type { Keyring } from '../../../lib/crypto.js';
import type { ConnectionRow } from './connection-rows.js';
import { readCredentials, readWebhookSecret, sealCredentials, sealedColumns, sealWebhookSecret } from './connection-secrets.js';

export type RotationResult = { connections: number; reencrypted: number };

/**
 * Re-encrypts every connection secret (credentials and webhook secret) that is not yet under
 * the first key of `keys`, decrypting with whichever key of `keys` it names. One transaction,
 * rows locked: either every secret moves to the new key or none does. Running it again changes nothing.
 */
export async function rotateConnectionSecrets(keys: Keyring): Promise<RotationResult> {
  const current = keys[0]?.kid;
  if (!current) throw new Error('no keys given');
  return transaction(async (tx) => {
    const rows = await lockEveryRow<ConnectionRow>(tx, 'accounting_connections');
    let reencrypted = 0;
    for (const row of rows) {
      const stale = row.credentials_kid !== current || (row.webhook_secret_kid !== null && row.webhook_secret_kid !== current);
      if (!stale) continue;
      const webhookSecret = readWebhookSecret(row, keys);
      await db().query(
        `UPDATE accounting_connections
            SET credentials_ciphertext = :credentials_ciphertext, credentials_iv = :credentials_iv,
                credentials_tag = :credentials_tag, credentials_kid = :credentials_kid,
                webhook_secret_ciphertext = :webhook_secret_ciphertext, webhook_secret_iv = :webhook_secret_iv,
                webhook_secret_tag = :webhook_secret_tag, webhook_secret_kid = :webhook_secret_kid
          WHERE workspace_id = :ws AND id = :id`,
        {
          replacements: {
            ws: row.workspace_id,
            id: row.id,
            ...sealedColumns('credentials', sealCredentials(row.id, readCredentials(row, keys), keys)),
            ...sealedColumns('webhook_secret', webhookSecret === null ? null : sealWebhookSecret(row.id, webhookSecret, keys)),
          },
          transaction: tx,
        },
      );
      reencrypted++;
    }
    return { connections: rows.length, reencrypted };
  });
}
