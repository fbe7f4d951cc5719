import { forbidden, notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';

/**
 * Who reads the books (CONTRACT §23, §19): the workspace's members. A project-only member, and an
 * API key limited to projects, get 403 (the books are the workspace's); a stranger 403 for a named
 * workspace.
 */
export function requireBooksReader(actor: Actor, workspaceId: number): void {
  scope.requireWorkspaceMember(actor, workspaceId);
}

/**
 * An object of the books (a journal transaction, an account) found by id in `workspaceId`:
 * members read it; a project-only member of that workspace gets 403, as for the rest of the
 * books; anyone else 404, never learning that it exists.
 */
export function requireBooksObject(actor: Actor, workspaceId: number | undefined, what: string): number {
  if (workspaceId === undefined) throw notFound(what);
  if (scope.canSeeWorkspaceObject(actor, workspaceId)) return workspaceId;
  for (const ws of actor.projectWorkspace.values()) if (ws === workspaceId) throw forbidden('The books are read by workspace members only');
  throw notFound(what);
}
