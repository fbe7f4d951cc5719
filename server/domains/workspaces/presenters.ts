import type { EntrySource, Project, User, Workspace } from '../../db/models/index.js';
import type { MemberObject, ProjectObject, WorkspaceObject } from '../../../shared/contracts/workspaces.js';
import type { EntrySourceObject } from '../../../shared/contracts/tags.js';

export const presentWorkspace = (ws: Workspace): WorkspaceObject => ({
  id: ws.id,
  name: ws.name,
  baseCurrency: ws.baseCurrency,
  createdAt: ws.createdAt.toISOString(),
  updatedAt: ws.updatedAt.toISOString(),
});

export const presentProject = (p: Project): ProjectObject => ({
  id: p.id,
  workspaceId: p.workspaceId,
  name: p.name,
  code: p.code,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

/** A membership (workspace or project) shown with the member's public fields only. */
export const presentMember = (user: User, membership: { createdAt: Date }): MemberObject => ({
  userId: user.id,
  email: user.email,
  name: user.name,
  createdAt: membership.createdAt.toISOString(),
});

export const presentEntrySource = (s: EntrySource): EntrySourceObject => ({
  id: s.id,
  workspaceId: s.workspaceId,
  kind: s.kind,
  name: s.name,
  integrationId: s.integrationId,
  createdAt: s.createdAt.toISOString(),
});
