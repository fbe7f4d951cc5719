import { preparedRows } from '../../../db/prepared.js';
import { clock } from '../../../lib/clock.js';
import { AppError, unauthorized } from '../../../lib/errors.js';
import type { Actor } from '../../../lib/scope.js';
import { runtime } from '../../../runtime.js';
import { hashAppKey, looksLikeAppKey } from './key-format.js';

type KeyRow = {
  id: string;
  workspace_id: number;
  name: string;
  permissions: string[];
  project_ids: number[];
  created_by: string | null;
  creator_email: string | null;
  creator_name: string | null;
};

const INVALID = 'Invalid, expired or revoked API key';
const WINDOW_MS = 60_000;

const LIVE_KEY_SQL = `
  SELECT k.id, k.workspace_id, k.name, k.permissions, k.project_ids, k.created_by, u.email AS creator_email, u.name AS creator_name
    FROM api_keys k LEFT JOIN users u ON u.id = k.created_by
   WHERE (k.key_hash = $1 OR (k.previous_key_hash = $1 AND k.previous_key_until > $2))
     AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)`;

const SLOT_SQL = `
  WITH expired AS (DELETE FROM api_key_rate_windows WHERE api_key_id = $1 AND window_start < $2),
       used AS (UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND workspace_id = $3 AND (last_used_at IS NULL OR last_used_at < $2))
  INSERT INTO api_key_rate_windows (api_key_id, window_start, request_count) VALUES ($1, $2, 1)
  ON CONFLICT (api_key_id, window_start) DO UPDATE SET request_count = api_key_rate_windows.request_count + 1
  RETURNING request_count`;

/**
 * The live key whose secret (or, during a rotation's grace, previous secret) this is, or 401.
 * Looked up by SHA-256, so the index search depends on the digest, not on how much of a guess was right.
 */
async function findLiveKey(secret: string): Promise<KeyRow> {
  if (!looksLikeAppKey(secret)) throw unauthorized(INVALID);
  // a named prepared statement, as the slot's below: every request of an agent (MCP, CONTRACT §20) runs both
  const rows = await preparedRows<KeyRow>('api-key-live', LIVE_KEY_SQL, [hashAppKey(secret), clock.now()]);
  const row = rows[0];
  if (!row || !row.created_by) throw unauthorized(INVALID);
  return row;
}

/**
 * Counts the request in the key's one-minute window, held in PostgreSQL so every instance shares
 * it (CONTRACT §19, API_KEY_RATE_PER_MINUTE): 429 with Retry-After beyond. The same statement keeps
 * `lastUsedAt` to the minute (written at most once a minute) and drops the key's older windows.
 * The key's row is updated in its workspace: on Citus (CONTRACT §24) that is one shard's row, not an
 * update of every shard of api_keys, which concurrent requests of one key ran into distributed deadlocks with.
 */
async function takeSlot(keyId: string, workspaceId: number): Promise<void> {
  const limit = runtime().config.API_KEY_RATE_PER_MINUTE;
  const now = clock.now().getTime();
  const windowStart = new Date(Math.floor(now / WINDOW_MS) * WINDOW_MS);
  const [row] = await preparedRows<{ request_count: number }>('api-key-slot', SLOT_SQL, [keyId, windowStart, workspaceId], 'write');
  if (row.request_count > limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now) / 1000));
    throw new AppError('TOO_MANY_REQUESTS', `Rate limit of ${limit} requests per minute for this API key exceeded`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}

/**
 * An app key (`Authorization: Bearer fes_app_…`) → the actor it is: its permissions, and the scope
 * of a workspace member (no projectIds) or of a member of those projects only (CONTRACT §19, §4).
 * Read live on every request, like a session: a revoked key is refused at once everywhere.
 */
export async function authenticateAppKey(secret: string): Promise<Actor> {
  const key = await findLiveKey(secret);
  await takeSlot(key.id, key.workspace_id);
  const projects = key.project_ids.map(Number);
  return {
    kind: 'API_KEY',
    apiKeyId: key.id,
    userId: key.created_by!,
    sessionId: '',
    email: key.creator_email ?? '',
    name: key.creator_name ?? key.name,
    permissions: new Set(key.permissions),
    workspaceIds: new Set(projects.length ? [] : [key.workspace_id]),
    projectWorkspace: new Map(projects.map((p) => [p, key.workspace_id])),
  };
}
