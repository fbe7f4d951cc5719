import { randomUUID } from 'node:crypto';
import { User, WorkspaceMember } from '../../../server/db/models/index.js';
import { hashPassword } from '../../../server/domains/auth/passwords.js';
import { sessionCache } from '../../../server/domains/auth/authenticate.js';
import { PERMISSIONS, type Permission } from '../../../shared/permissions.js';
import type { Api } from '../http.js';

export const PASSWORD = 'correct-horse-battery';
let cachedHash: Promise<string> | undefined;

export type TestUser = { id: string; email: string; password: string };

/** A user straight in the database (the bootstrap path); permissions default to all. */
export async function buildUser(opts: { permissions?: readonly Permission[]; email?: string; name?: string } = {}): Promise<TestUser> {
  cachedHash ??= hashPassword(PASSWORD);
  const email = opts.email ?? `user-${randomUUID().slice(0, 8)}@example.test`;
  const user = await User.create({
    email: email.toLowerCase(),
    name: opts.name ?? 'Test User',
    passwordHash: await cachedHash,
    permissions: [...(opts.permissions ?? PERMISSIONS)],
    isActive: true,
  });
  return { id: user.id, email: user.email, password: PASSWORD };
}

export async function login(api: Api, user: { email: string; password: string }): Promise<string> {
  const res = await api.post('/auth/login', { email: user.email, password: user.password });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.access_token;
}

/**
 * A user with a token (permissions default to all), optionally a member of the given workspace
 * (`workspaceId`) or workspaces (`workspaceIds`).
 */
export async function actor(
  api: Api,
  opts: { permissions?: readonly Permission[]; workspaceId?: number; workspaceIds?: readonly number[] } = {},
) {
  const user = await buildUser({ permissions: opts.permissions });
  for (const workspaceId of [...(opts.workspaceId ? [opts.workspaceId] : []), ...(opts.workspaceIds ?? [])]) {
    await WorkspaceMember.create({ workspaceId, userId: user.id });
  }
  await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
  return { ...user, token: await login(api, user) };
}
