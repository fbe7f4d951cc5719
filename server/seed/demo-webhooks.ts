import { randomUUID } from 'node:crypto';
import { db } from '../db/database.js';
import { clock } from '../lib/clock.js';
import type { DemoWorkspace } from './demo-entries.js';
import { newSecret, sealedSecretColumns } from '../domains/webhooks/endpoint-secrets.js';

/**
 * Outbound webhooks in the demo (CONTRACT §15): one INACTIVE endpoint with an example URL (nothing
 * is ever sent to it; a user points it at their app and enables it), and the events that the
 * demo's document, review and period changes published through the services in the feed.
 */
export async function seedDemoWebhooks(adminId: string, ws: DemoWorkspace): Promise<void> {
  const id = randomUUID();
  const now = clock.now();
  await db().query(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, event_types, description, is_active, disabled_reason,
                                    secret_ciphertext, secret_iv, secret_tag, secret_kid, created_by, created_at, updated_at)
     VALUES (:id, :ws, 'https://example.com/webhooks/finance-entries', '{entry.created,entry.status_changed,period.closed}',
             :description, false, NULL, :secret_ciphertext, :secret_iv, :secret_tag, :secret_kid, :adminId, :now, :now)`,
    {
      replacements: {
        id,
        ws: ws.workspaceId,
        description: 'Example endpoint (inactive): point it at your app, rotate its secret, then enable it',
        adminId,
        now,
        ...sealedSecretColumns(id, newSecret()),
      },
    },
  );
}
