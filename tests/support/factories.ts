import { randomUUID } from 'node:crypto';
import { EntrySource, Party, Project, ProjectMember, Tag, User, Workspace, WorkspaceMember } from '../../server/db/models/index.js';
import { hashPassword } from '../../server/domains/auth/passwords.js';
import { PERMISSIONS, type Permission } from '../../shared/permissions.js';
import type { Api } from './http.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

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

export async function buildWorkspace(opts: { members?: string[]; name?: string; projects?: number } = {}) {
  const ws = await Workspace.create({ name: opts.name ?? 'Test Workspace', baseCurrency: 'USD' });
  for (const userId of opts.members ?? []) await WorkspaceMember.create({ workspaceId: ws.id, userId });
  if (opts.members?.length) await sessionCache.settled();
  const source = await EntrySource.create({ workspaceId: ws.id, kind: 'MANUAL', name: 'Manual' });
  const projects = [];
  for (let i = 0; i < (opts.projects ?? 1); i++) {
    projects.push(await Project.create({ workspaceId: ws.id, name: `Project ${i + 1}`, code: `P${i + 1}` }));
  }
  return { id: ws.id, projectIds: projects.map((p) => p.id), sourceId: source.id };
}

export async function addProjectMember(projectId: number, userId: string) {
  const p = await Project.findByPk(projectId);
  await ProjectMember.create({ projectId, userId, workspaceId: p!.workspaceId });
  await sessionCache.settled();
}

export async function login(api: Api, user: { email: string; password: string }): Promise<string> {
  const res = await api.post('/auth/login', { email: user.email, password: user.password });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.access_token;
}

/** A user with a token, optionally a member of the given workspace. */
export async function actor(api: Api, opts: { permissions?: readonly Permission[]; workspaceId?: number } = {}) {
  const user = await buildUser({ permissions: opts.permissions });
  if (opts.workspaceId) await WorkspaceMember.create({ workspaceId: opts.workspaceId, userId: user.id });
  await sessionCache.settled();
  return { ...user, token: await login(api, user) };
}

export async function buildParty(workspaceId: number, opts: { name?: string; partyType?: 'PERSON' | 'ORGANIZATION' } = {}) {
  const party = await Party.create({ workspaceId, name: opts.name ?? 'Test Party', partyType: opts.partyType ?? 'ORGANIZATION' });
  return { id: party.id };
}

export async function buildTag(workspaceId: number, opts: { name?: string; color?: string } = {}) {
  const tag = await Tag.create({ workspaceId, name: opts.name ?? `tag-${randomUUID().slice(0, 8)}`, color: opts.color ?? null });
  return { id: tag.id };
}
