import { Op } from 'sequelize';
import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../db/database.js';
import { Session, User } from '../../db/models/index.js';
import { clock } from '../../lib/clock.js';
import { AppError, forbidden, unauthorized } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import { runtime } from '../../runtime.js';
import type { LoginInput, Me, TokenResponse } from '../../../shared/contracts/auth.js';
import { actorFrom, loadLiveSession, sessionIsUsable } from './authenticate.js';
import { dummyHash, verifyPassword } from './passwords.js';
import { ACCESS_TOKEN_SECONDS, REFRESH_GRACE_SECONDS, bearerToken, signAccessToken, verifyAccessToken } from './tokens.js';

const BAD_LOGIN = 'Invalid email or password';

function tokenResponse(user: { id: string; email: string; name: string; permissions: string[] }, sessionId: string): TokenResponse {
  return {
    access_token: signAccessToken(user.id, sessionId),
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
    user: { id: user.id, email: user.email, name: user.name, permissions: [...user.permissions].sort() },
  };
}

/**
 * Takes one of the email's LOGIN_MAX_FAILURES password checks of the window, or 429 (with when to
 * come back) when none is left. The attempt is recorded before the password is checked, under a
 * transaction lock on the email, so however many attempts arrive at once, on however many
 * instances, at most that many passwords are checked (CONTRACT §4). A success removes the
 * email's attempts again; a failure leaves its row, which is the recorded failure.
 */
async function takeLoginAttempt(email: string): Promise<void> {
  const { LOGIN_MAX_FAILURES, LOGIN_WINDOW_MINUTES } = runtime().config;
  const windowMs = LOGIN_WINDOW_MINUTES * 60_000;
  const now = clock.now().getTime();
  const retryAfter = await transaction(async (tx) => {
    await db().query('SELECT pg_advisory_xact_lock(hashtextextended(:lock, 0))', {
      replacements: { lock: `login:${email}` },
      transaction: tx,
    });
    const rows = await db().query<{ attempted_at: Date }>(
      `SELECT attempted_at FROM login_failures WHERE email = :email AND attempted_at > :since ORDER BY attempted_at ASC`,
      { replacements: { email, since: new Date(now - windowMs) }, type: QueryTypes.SELECT, transaction: tx },
    );
    if (rows.length >= LOGIN_MAX_FAILURES) {
      const freesAt = rows[rows.length - LOGIN_MAX_FAILURES].attempted_at.getTime() + windowMs;
      return Math.max(1, Math.ceil((freesAt - now) / 1000));
    }
    await db().query('INSERT INTO login_failures (email, attempted_at) VALUES (:email, :at)', {
      replacements: { email, at: new Date(now) },
      transaction: tx,
    });
    return null;
  });
  if (retryAfter !== null) {
    throw new AppError('TOO_MANY_REQUESTS', 'Too many failed login attempts; try again later', {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}

export async function login(input: LoginInput): Promise<TokenResponse> {
  const email = input.email.trim().toLowerCase();
  await takeLoginAttempt(email);
  const user = await User.findOne({ where: { email } });
  const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash()), input.password);
  if (!user || !ok || !user.isActive) throw unauthorized(BAD_LOGIN); // the attempt taken above stays, as a failure
  const now = clock.now();
  const session = await transaction(async (tx) => {
    await db().query('DELETE FROM login_failures WHERE email = :email', { replacements: { email }, transaction: tx });
    return Session.create(
      { userId: user.id, createdAt: now, expiresAt: new Date(now.getTime() + runtime().config.SESSION_MAX_AGE_HOURS * 3_600_000) },
      { transaction: tx },
    );
  });
  return tokenResponse(user, session.id);
}

/** New 15-minute token for a live session; accepts a token up to 7 minutes past its expiry. */
export async function refresh(authorization: string | undefined): Promise<TokenResponse> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized('Missing or malformed bearer token');
  const claims = verifyAccessToken(token, REFRESH_GRACE_SECONDS);
  const row = await loadLiveSession(claims).catch(() => undefined);
  if (!sessionIsUsable(row)) throw unauthorized('Session is no longer valid');
  return tokenResponse(row, claims.sid);
}

/** Sessions are a person's: an API key has none to end or describe (DELETE /api-keys/{id} revokes a key). */
function assertPerson(actor: Actor): void {
  if (actor.kind === 'API_KEY') throw forbidden('An API key has no session: this route is for users');
}

export async function logout(actor: Actor): Promise<{ success: true }> {
  assertPerson(actor);
  await Session.update({ revokedAt: clock.now() }, { where: { id: actor.sessionId, revokedAt: { [Op.is]: null } } });
  return { success: true };
}

/** Revokes every session of a user (deactivation, password reset), optionally sparing one. */
export async function revokeSessionsOf(userId: string, tx?: import('sequelize').Transaction, except?: string): Promise<void> {
  const where: Record<string | symbol, unknown> = { userId, revokedAt: { [Op.is]: null } };
  if (except) where.id = { [Op.ne]: except };
  await Session.update({ revokedAt: clock.now() }, { where, transaction: tx });
}

export async function me(actor: Actor): Promise<Me> {
  assertPerson(actor);
  const row = await loadLiveSession({ sub: actor.userId, sid: actor.sessionId });
  const a = row ? actorFrom(row, actor.sessionId) : actor;
  const byWorkspace = new Map<number, number[]>();
  for (const [projectId, ws] of a.projectWorkspace) {
    if (a.workspaceIds.has(ws)) continue;
    byWorkspace.set(
      ws,
      [...(byWorkspace.get(ws) ?? []), projectId].sort((x, y) => x - y),
    );
  }
  const memberships = [
    ...[...a.workspaceIds].sort((x, y) => x - y).map((workspaceId) => ({ workspaceId, role: 'WORKSPACE' as const, projectIds: [] })),
    ...[...byWorkspace].map(([workspaceId, projectIds]) => ({ workspaceId, role: 'PROJECT' as const, projectIds })),
  ];
  return {
    id: a.userId,
    email: a.email,
    name: a.name,
    permissions: [...a.permissions].sort(),
    isActive: true,
    memberships,
  };
}
