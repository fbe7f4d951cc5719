import type { Actor } from '../lib/scope.js';
import { createApiKey } from '../domains/auth/index.js';

/**
 * The demo workspace's API key for an app (CONTRACT §19), made through the real service: entries
 * and parties of the whole workspace, nothing of users. Its secret exists only in the returned
 * value, printed once at first start as the generated admin password is.
 */
export async function seedDemoApiKey(actor: Actor, workspaceId: number): Promise<string> {
  const key = await createApiKey(actor, {
    workspaceId,
    name: 'Demo app',
    permissions: ['entry.create', 'entry.edit', 'entry.export', 'entry.note', 'party.create'],
  });
  return key.apiKey;
}
