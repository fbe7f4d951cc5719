import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { unauthorized } from '../../lib/errors.js';
import { requirePermission, type Actor } from '../../lib/scope.js';
import type { Permission } from '../../../shared/permissions.js';
import { authenticateAppKey } from './api-keys/key-auth.js';
import { isAppKeyShaped } from './api-keys/key-format.js';
import { SessionCache } from './session-cache.js';
import { bearerToken, verifyAccessToken, type TokenClaims } from './tokens.js';

type SessionRow = {
  id: string;
  email: string;
  name: string;
  permissions: string[];
  is_active: boolean;
  revoked_at: Date | null;
  expires_at: Date;
  workspace_ids: number[];
  projects: [number, number][];
};

/**
 * Session, user, permissions and memberships in one round trip, read live. The memberships are read
 * by the token's user id, not correlated with the users row: on Citus (CONTRACT §24) users and
 * sessions stay on the coordinator while the memberships are distributed, and a correlated subquery
 * across the two cannot be planned.
 */
export async function loadLiveSession(claims: Pick<TokenClaims, 'sub' | 'sid'>): Promise<SessionRow | undefined> {
  const rows = await db().query<SessionRow>(
    `SELECT u.id, u.email, u.name, u.permissions, u.is_active, s.revoked_at, s.expires_at,
            ARRAY(SELECT workspace_id FROM workspace_members WHERE user_id = :sub) AS workspace_ids,
            COALESCE((SELECT json_agg(json_build_array(project_id, workspace_id)) FROM project_members WHERE user_id = :sub), '[]') AS projects
       FROM sessions s JOIN users u ON u.id = s.user_id
      WHERE s.id = :sid AND s.user_id = :sub`,
    { replacements: { sid: claims.sid, sub: claims.sub }, type: QueryTypes.SELECT },
  );
  return rows[0];
}

export function sessionIsUsable(row: SessionRow | undefined): row is SessionRow {
  return !!row && row.is_active && !row.revoked_at && row.expires_at.getTime() > clock.now().getTime();
}

/** The actor of each kept session row, built once per row (rows are kept per session, see SessionCache). */
const actors = new WeakMap<SessionRow, Actor>();

function cachedActor(row: SessionRow, sessionId: string): Actor {
  let actor = actors.get(row);
  if (!actor || actor.sessionId !== sessionId) actors.set(row, (actor = actorFrom(row, sessionId)));
  return actor;
}

export function actorFrom(row: SessionRow, sessionId: string): Actor {
  return {
    kind: 'USER',
    userId: row.id,
    sessionId,
    email: row.email,
    name: row.name,
    permissions: new Set(row.permissions),
    workspaceIds: new Set(row.workspace_ids),
    projectWorkspace: new Map(row.projects),
  };
}

/** Sessions recently read, evicted when a user, session or membership changes (see SessionCache). */
export const sessionCache = new SessionCache<SessionRow>();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Bearer token → live actor, or 401 (missing, malformed, bad signature, expired, revoked, inactive):
 * a user's access token, or an app's API key (CONTRACT §19), a principal of its own.
 */
export async function authenticateRequest(authorization: string | undefined): Promise<Actor> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized('Missing or malformed bearer token');
  if (isAppKeyShaped(token)) return authenticateAppKey(token);
  const claims = verifyAccessToken(token);
  if (!UUID_RE.test(claims.sub) || !UUID_RE.test(claims.sid)) throw unauthorized('Invalid or expired token');
  const row = await sessionCache.lookup(claims.sid, claims.sub, () => loadLiveSession(claims));
  if (!sessionIsUsable(row)) throw unauthorized('Session is no longer valid');
  return cachedActor(row, claims.sid);
}

/** An HTTP request, as far as authentication reads it. */
export type BearerRequest = { headers: { authorization?: string } };

const actorsByRequest = new WeakMap<BearerRequest, Promise<Actor>>();

/**
 * The caller of one HTTP request, authenticated once however many layers ask (the idempotency
 * middleware, then the procedure or express route): an app key's rate limit (CONTRACT §19) counts
 * the request once, and a session is looked up once.
 */
export function requestActor(req: BearerRequest): Promise<Actor> {
  let actor = actorsByRequest.get(req);
  if (!actor) {
    actor = authenticateRequest(req.headers.authorization);
    actorsByRequest.set(req, actor);
  }
  return actor;
}

/** The caller of an express route: authenticated (401) and holding `permission` when one is named (403). */
export async function authorizeRequest(req: BearerRequest, permission?: Permission): Promise<Actor> {
  const actor = await requestActor(req);
  if (permission) requirePermission(actor, permission);
  return actor;
}
