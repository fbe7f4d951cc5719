import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { AppError, unauthorized } from '../../lib/errors.js';
import { runtime } from '../../runtime.js';
import { hashApiKey, looksLikeApiKey } from './api-keys.js';

/** What an ingest request acts as: an active integration, found by its key. */
export type IngestCaller = {
  id: string;
  workspaceId: number;
  projectIds: number[];
  entrySourceId: number;
};

/**
 * X-API-Key → the active integration, or 401 (missing, malformed, unknown, revoked or rotated
 * key, all with one message). The key is looked up by its SHA-256: the index search depends on
 * the digest, not on how many leading characters of the secret a guess got right.
 */
export async function authenticateApiKey(header: string | undefined): Promise<IngestCaller> {
  if (!header) throw unauthorized('Missing X-API-Key header');
  if (!looksLikeApiKey(header)) throw unauthorized('Invalid or revoked API key');
  const rows = await db().query<{ id: string; workspace_id: number; project_ids: number[]; entry_source_id: number }>(
    'SELECT id, workspace_id, project_ids, entry_source_id FROM integrations WHERE key_hash = $1 AND is_active',
    { bind: [hashApiKey(header)], type: QueryTypes.SELECT },
  );
  const row = rows[0];
  if (!row) throw unauthorized('Invalid or revoked API key');
  return { id: row.id, workspaceId: row.workspace_id, projectIds: row.project_ids.map(Number), entrySourceId: row.entry_source_id };
}

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute window per integration key, counted in PostgreSQL so that every server
 * instance shares it (CONTRACT §12, INGEST_RATE_PER_MINUTE). Over the limit: 429 with
 * Retry-After = seconds until the window ends. Older windows of the key are dropped on the way.
 */
export async function takeIngestSlot(caller: IngestCaller): Promise<void> {
  const limit = runtime().config.INGEST_RATE_PER_MINUTE;
  const now = clock.now().getTime();
  const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  const [row] = await db().query<{ request_count: number }>(
    // the primary key by its name: on Citus it gains workspace_id (CONTRACT §24), and the workspace routes the statement
    `WITH expired AS (DELETE FROM ingest_rate_windows WHERE workspace_id = $2 AND integration_id = $1 AND window_start < $3)
     INSERT INTO ingest_rate_windows (integration_id, workspace_id, window_start, request_count) VALUES ($1, $2, $3, 1)
     ON CONFLICT ON CONSTRAINT ingest_rate_windows_pkey DO UPDATE SET request_count = ingest_rate_windows.request_count + 1
     RETURNING request_count`,
    { bind: [caller.id, caller.workspaceId, new Date(windowStart)], type: QueryTypes.SELECT },
  );
  if (row.request_count > limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    throw new AppError('TOO_MANY_REQUESTS', `Rate limit of ${limit} ingest requests per minute exceeded`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}
