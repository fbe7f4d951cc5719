import type { Permission } from '../../../shared/permissions.js';
import type { Api } from '../http.js';

/** POST /api-keys as `token`, failing loudly unless it succeeds; the key object with its secret (CONTRACT §19). */
export async function createKey(
  api: Api,
  token: string,
  body: { workspaceId: number; permissions: Permission[]; projectIds?: number[]; name?: string; expiresAt?: string },
): Promise<{ id: string; apiKey: string; prefix: string; [k: string]: unknown }> {
  const res = await api.post('/api-keys', { name: 'Test app', ...body }, { token });
  if (res.status !== 200) throw new Error(`create key: ${res.status} ${res.text}`);
  return res.body;
}
