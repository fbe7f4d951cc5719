import { PERMISSIONS, type Permission } from '../../../shared/permissions.js';
import { NON_GRANTABLE_TO_KEYS } from '../../../shared/contracts/api-keys.js';
import type { Api } from '../../support/http.js';

/**
 * Issue 29: the callers of the access matrix as apps (CONTRACT §19): API keys of the victim's
 * workspace lacking one permission each, a key of the attacker's workspace and a key of the
 * victim's second project only, each with every permission a key may hold.
 */
export type TenantKeys = {
  /** the victim's own key (every grantable permission, whole workspace): its id is probed, its secret must never come back */
  victim: { id: string; apiKey: string };
  attacker: string;
  projectOnly: string;
  /** per permission, a key of the victim's workspace without it (non-grantable ones: the victim's key, which never has them) */
  lacking: Map<Permission, string>;
};

export const GRANTABLE: Permission[] = PERMISSIONS.filter((p) => !NON_GRANTABLE_TO_KEYS.includes(p));

async function key(api: Api, token: string, body: Record<string, unknown>): Promise<{ id: string; apiKey: string }> {
  const res = await api.post('/api-keys', body, { token });
  if (res.status !== 200) throw new Error(`api key: ${res.status} ${res.text}`);
  return res.body;
}

export async function buildTenantKeys(
  api: Api,
  v: { token: string; workspaceId: number; secondProjectId: number; marker: string },
  a: { token: string; workspaceId: number },
  withLacking: boolean,
): Promise<TenantKeys> {
  const victim = await key(api, v.token, { workspaceId: v.workspaceId, name: `${v.marker} app key`, permissions: GRANTABLE });
  const attacker = await key(api, a.token, { workspaceId: a.workspaceId, name: 'Attacker app key', permissions: GRANTABLE });
  const projectOnly = await key(api, v.token, {
    workspaceId: v.workspaceId,
    name: 'Second project app key',
    permissions: GRANTABLE,
    projectIds: [v.secondProjectId],
  });
  const lacking = new Map<Permission, string>();
  for (const p of withLacking ? PERMISSIONS : []) {
    if (!GRANTABLE.includes(p)) {
      lacking.set(p, victim.apiKey);
      continue;
    }
    const without = GRANTABLE.filter((x) => x !== p);
    lacking.set(p, (await key(api, v.token, { workspaceId: v.workspaceId, name: `without ${p}`, permissions: without })).apiKey);
  }
  return { victim, attacker: attacker.apiKey, projectOnly: projectOnly.apiKey, lacking };
}
