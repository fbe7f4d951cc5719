import type { Permission } from '../../shared/permissions.js';
import { recordAccess, type AccessCheck } from './access-record.js';
import { forbidden, notFound } from './errors.js';

/** Who is calling, as read live from the database on this request. */
export type Actor = {
  /** a person's session, or an app's API key (CONTRACT §19) acting for its workspace */
  kind: 'USER' | 'API_KEY';
  /** the user; for an API key, the user who created it (the person answerable for what it writes) */
  userId: string;
  /** empty for an API key */
  sessionId: string;
  /** set for an API key: what its events are attributed to */
  apiKeyId?: string;
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
  recordAccess({ permission: p });
}

function projectsIn(actor: Actor, workspaceId: number): number[] {
  const ids: number[] = [];
  for (const [projectId, ws] of actor.projectWorkspace) if (ws === workspaceId) ids.push(projectId);
  return ids.sort((a, b) => a - b);
}

const reachesProject = (actor: Actor, workspaceId: number, projectId: number) =>
  actor.workspaceIds.has(workspaceId) || actor.projectWorkspace.get(projectId) === workspaceId;

/** A check's answer, recorded when it lets the caller through (see lib/access-record.ts). */
function passed(ok: boolean, check: AccessCheck): boolean {
  if (ok) recordAccess(check);
  return ok;
}

/** CONTRACT §19: what a key creates has `createdBy` null (its events name the key); a person's, the person. */
export const creatorOf = (actor: Actor): string | null => (actor.kind === 'API_KEY' ? null : actor.userId);

/**
 * Throws what a failed check answers, when one of the checks a request passed fails for the
 * actor now: the permission first (403), then scope (403 for a named workspace, 404 for an object).
 */
export function recheckAccess(actor: Actor, checks: readonly AccessCheck[]): void {
  for (const c of checks)
    if ('permission' in c && !actor.permissions.has(c.permission)) throw forbidden(`Missing permission ${c.permission}`);
  for (const c of checks) {
    if ('workspace' in c && !('project' in c) && !actor.workspaceIds.has(c.workspace)) {
      throw c.status === 403 ? forbidden('Not a member of this workspace') : notFound('Resource');
    }
    if ('reach' in c && !actor.workspaceIds.has(c.reach) && projectsIn(actor, c.reach).length === 0) {
      throw forbidden('Not a member of this workspace');
    }
    if ('project' in c && !reachesProject(actor, c.workspace, c.project)) throw notFound('Resource');
  }
}

/**
 * The one place that says who reaches what (CONTRACT §2, §4):
 * - a `workspaceId` the caller names in a query or body → 403 when not theirs;
 * - an object id the caller cannot see → 404, never revealing it exists.
 */
export const scope = {
  isWorkspaceMember: (actor: Actor, workspaceId: number) =>
    passed(actor.workspaceIds.has(workspaceId), { workspace: workspaceId, status: 403 }),

  /** Workspace-level resources (connections, periods, parties, tags, members …). */
  requireWorkspaceMember(actor: Actor, workspaceId: number): void {
    if (!actor.workspaceIds.has(workspaceId)) throw forbidden('Not a member of this workspace');
    recordAccess({ workspace: workspaceId, status: 403 });
  },

  /** Entry lists, exports and reports by workspaceId: project members see their projects. */
  workspaceReach(actor: Actor, workspaceId: number): WorkspaceReach {
    if (actor.workspaceIds.has(workspaceId)) {
      recordAccess({ workspace: workspaceId, status: 403 });
      return { workspaceId, all: true };
    }
    const projectIds = projectsIn(actor, workspaceId);
    if (projectIds.length === 0) throw forbidden('Not a member of this workspace');
    recordAccess({ reach: workspaceId });
    return { workspaceId, all: false, projectIds };
  },

  canSeeWorkspaceObject: (actor: Actor, workspaceId: number) =>
    passed(actor.workspaceIds.has(workspaceId), { workspace: workspaceId, status: 404 }),

  canSeeProjectObject(actor: Actor, workspaceId: number, projectId: number): boolean {
    return passed(reachesProject(actor, workspaceId, projectId), { project: projectId, workspace: workspaceId });
  },

  /** Loads-and-checks helper: a workspace-owned object or 404. */
  workspaceObject<T extends { workspaceId: number }>(actor: Actor, obj: T | null | undefined, what: string): T {
    if (!obj || !scope.canSeeWorkspaceObject(actor, obj.workspaceId)) throw notFound(what);
    return obj;
  },

  /** A project-owned object (entry and what hangs off it) or 404. */
  projectObject<T extends { workspaceId: number; projectId: number }>(actor: Actor, obj: T | null | undefined, what: string): T {
    if (!obj || !scope.canSeeProjectObject(actor, obj.workspaceId, obj.projectId)) throw notFound(what);
    return obj;
  },
};
