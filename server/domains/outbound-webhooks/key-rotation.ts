import { db, transaction } from '../../db/database.js';
import { lockEveryRow } from '../../db/distributed.js';
import type { Keyring } from '../../lib/crypto.js';
import type { EndpointRow } from './endpoint-rows.js';
import { openPreviousSecret, openSecret, sealedSecretColumns } from './endpoint-secrets.js';

export type EndpointRotationResult = { webhookEndpoints: number; webhookReencrypted: number };

/**
 * Re-encrypts the signing secrets (current and previous) of every endpoint not yet under the
 * first key of `keys` (npm run rotate-keys, beside the connection secrets). One transaction, rows
 * locked; running it again changes nothing.
 */
export async function rotateEndpointSecrets(keys: Keyring): Promise<EndpointRotationResult> {
  const current = keys[0]?.kid;
  if (!current) throw new Error('no keys given');
  return transaction(async (tx) => {
    const rows = await lockEveryRow<EndpointRow>(tx, 'webhook_endpoints');
    let reencrypted = 0;
    for (const row of rows) {
      if (row.secret_kid === current && (row.previous_secret_kid === null || row.previous_secret_kid === current)) continue;
      const previous = openPreviousSecret(row.id, row, keys);
      const previousColumns =
        previous === null
          ? { previous_secret_ciphertext: null, previous_secret_iv: null, previous_secret_tag: null, previous_secret_kid: null }
          : sealedSecretColumns(row.id, previous, 'previous_secret', keys);
      await db().query(
        `UPDATE webhook_endpoints
            SET secret_ciphertext = :secret_ciphertext, secret_iv = :secret_iv, secret_tag = :secret_tag, secret_kid = :secret_kid,
                previous_secret_ciphertext = :previous_secret_ciphertext, previous_secret_iv = :previous_secret_iv,
                previous_secret_tag = :previous_secret_tag, previous_secret_kid = :previous_secret_kid
          WHERE workspace_id = :ws AND id = :id`,
        {
          replacements: {
            id: row.id,
            ws: row.workspace_id,
            ...sealedSecretColumns(row.id, openSecret(row.id, row, keys), 'secret', keys),
            ...previousColumns,
          },
          transaction: tx,
        },
      );
      reencrypted++;
    }
    return { webhookEndpoints: rows.length, webhookReencrypted: reencrypted };
  });
}
