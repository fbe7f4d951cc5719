import type { Permission } from '../../shared/permissions.js';
import { forbidden, notFound } from './errors.js';

/** Who is calling, as read live from the database on this request. */
export type Actor = {
  kind: 'USER';
  userId: string;
  sessionId: string;
  email: string;
  name: string;
  permissions: ReadonlySet<string>;
  /** workspaces the user is a member of */
  workspaceIds: ReadonlySet<number>;
  /** projects the user is a member of, mapped to their workspace */
  projectWorkspace: ReadonlyMap<number, number>;
};

/** What part of a workspace an actor reaches: all of it, or only some projects. */
export type WorkspaceReach = { workspaceId: number; all: true } | { workspaceId: number; all: false; projectIds: number[] };

export function hasPermission(actor: Actor, p: Permission): boolean {
  return actor.permissions.has(p);
}

/** 403 unless the actor holds permission `p` (checked before any scope check). */
export function requirePermission(actor: Actor, p: Permission): void {
  if (!actor.permissions.has(p)) throw forbidden(`Missing permission ${p}`);
}

function projectsIn(actor: Actor, workspaceId: number): number[] {
  const ids: number[] = [];
  for (const [projectId, ws] of actor.projectWorkspace) if (ws === workspaceId) ids.push(projectId);
  return ids.sort((a, b) => a - b);
}

/**
 * The one place that says who reaches what (CONTRACT §2, §4):
 * - a `workspaceId` the caller names in a query or body → 403 when not theirs;
 * - an object id the caller cannot see → 404, never revealing it exists.
 */
export const scope = {
  isWorkspaceMember: (actor: Actor, workspaceId: number) => actor.workspaceIds.has(workspaceId),

  /** Workspace-level resources (connections, periods, parties, tags, members …). */
  requireWorkspaceMember(actor: Actor, workspaceId: number): void {
    if (!actor.workspaceIds.has(workspaceId)) throw forbidden('Not a member of this workspace');
  },

  /** Entry lists, exports and reports by workspaceId: project members see their projects. */
  workspaceReach(actor: Actor, workspaceId: number): WorkspaceReach {
    if (actor.workspaceIds.has(workspaceId)) return { workspaceId, all: true };
    const projectIds = projectsIn(actor, workspaceId);
    if (projectIds.length === 0) throw forbidden('Not a member of this workspace');
    return { workspaceId, all: false, projectIds };
  },

  canSeeWorkspaceObject: (actor: Actor, workspaceId: number) => actor.workspaceIds.has(workspaceId),

  canSeeProjectObject(actor: Actor, workspaceId: number, projectId: number): boolean {
    return actor.workspaceIds.has(workspaceId) || actor.projectWorkspace.get(projectId) === workspaceId;
  },

  /** Loads-and-checks helper: a workspace-owned object or 404. */
  workspaceObject<T extends { workspaceId: number }>(actor: Actor, obj: T | null | undefined, what: string): T {
    if (!obj || !actor.workspaceIds.has(obj.workspaceId)) throw notFound(what);
    return obj;
  },

  /** A project-owned object (entry and what hangs off it) or 404. */
  projectObject<T extends { workspaceId: number; projectId: number }>(actor: Actor, obj: T | null | undefined, what: string): T {
    if (!obj || !scope.canSeeProjectObject(actor, obj.workspaceId, obj.projectId)) throw notFound(what);
    return obj;
  },
};
