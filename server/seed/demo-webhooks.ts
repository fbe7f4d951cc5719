import { randomUUID } from 'node:crypto';
import { db } from '../db/database.js';
import { clock } from '../lib/clock.js';
import type { DemoWorkspace } from './demo-entries.js';
import { newSecret, sealedSecretColumns } from '../domains/outbound-webhooks/index.js';

/**
 * Outbound webhooks in the demo (CONTRACT §15). With the demo's own loopback receiver
 * (`receiverUrl`, server/seed/demo-webhook-receiver.ts): one ACTIVE endpoint for every event type
 * pointing at it, so the events of the demo steps seeded after it are delivered (the first attempts
 * made before the server listens are retried). Without it: one INACTIVE endpoint with an example
 * URL (nothing is ever sent to it; a user points it at their app and enables it). The events the
 * demo's earlier changes published are in the feed either way.
 */
export async function seedDemoWebhooks(adminId: string, ws: DemoWorkspace, receiverUrl: string | null = null): Promise<void> {
  const id = randomUUID();
  const now = clock.now();
  const endpoint = receiverUrl
    ? { url: receiverUrl, types: '{}', active: true, description: 'The demo’s own receiver on loopback: every event, answered 200' }
    : {
        url: 'https://example.com/webhooks/finance-entries',
        types: '{entry.created,entry.status_changed,period.closed}',
        active: false,
        description: 'Example endpoint (inactive): point it at your app, rotate its secret, then enable it',
      };
  await db().query(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, event_types, description, is_active, disabled_reason,
                                    secret_ciphertext, secret_iv, secret_tag, secret_kid, created_by, created_at, updated_at)
     VALUES (:id, :ws, :url, CAST(:types AS text[]), :description, :active, NULL, :secret_ciphertext, :secret_iv, :secret_tag,
             :secret_kid, :adminId, :now, :now)`,
    {
      replacements: {
        id,
        ws: ws.workspaceId,
        url: endpoint.url,
        types: endpoint.types,
        description: endpoint.description,
        active: endpoint.active,
        adminId,
        now,
        ...sealedSecretColumns(id, newSecret()),
      },
    },
  );
}
