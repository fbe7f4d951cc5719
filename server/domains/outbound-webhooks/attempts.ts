import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { onCitus } from '../../db/distributed.js';
import { AppError } from '../../lib/errors.js';
import { clock } from '../../lib/clock.js';
import { runtime } from '../../runtime.js';
import { failPendingDeliveries } from './endpoint-rows.js';
import { signingSecrets, type SecretColumns } from './endpoint-secrets.js';
import { post } from './sender.js';
import { signedHeaders } from './signature.js';
import { parseWebhookUrl, resolveWebhookHost } from './url-guard.js';
import { recordWebhookAttempt } from '../../lib/metrics.js';

/**
 * Delivery attempts (CONTRACT §15), shared by the workers and the manual retry/test routes:
 *
 * - claim: due PENDING deliveries are taken with `FOR UPDATE SKIP LOCKED`, stamped with a claim
 *   token and leased (next_attempt_at moved past the attempt's time limit), so each attempt is
 *   made by one instance only, and a crashed instance's claims come due again after the lease;
 * - attempt: sign, POST, classify the answer (2xx succeeds; anything else fails and is retried
 *   after the WEBHOOK_RETRY_SCHEDULE delay, at least Retry-After on 429/503; 410 disables the
 *   endpoint; a refused host fails the delivery at once);
 * - record: outcomes are written back in one statement per batch, only while the claim is ours.
 */

/** How long past WEBHOOK_TIMEOUT_MS a claim stays leased (host resolution, recording the outcome). */
export const LEASE_MARGIN_MS = 15_000;
/** Retry-After is honoured up to a day. */
const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

export type Claimed = SecretColumns & {
  id: string;
  claim_token: string;
  attempts: number;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  workspace_id: number;
  event_data: Record<string, unknown>;
  event_created_at: Date;
  url: string;
  is_active: boolean;
};

export type Outcome = {
  id: string;
  token: string;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  /** 1 when this counts as an attempt (a request, or a host that could not be called); 0 when skipped */
  sent: 0 | 1;
  code: number | null;
  error: string | null;
  at: string | null;
  next: string | null;
  /** set when the answer was 410: the endpoint to disable */
  disable?: { endpointId: string; reason: string };
};

const leaseMs = () => runtime().config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;

/** Joins what an attempt needs to the claimed delivery rows. */
const CLAIMED_SELECT = `
  SELECT c.id, c.claim_token, c.attempts, c.endpoint_id, c.event_id, ev.type AS event_type, ev.workspace_id,
         ev.data AS event_data, ev.created_at AS event_created_at, ep.url, ep.is_active,
         ep.secret_ciphertext, ep.secret_iv, ep.secret_tag, ep.secret_kid, ep.previous_secret_ciphertext, ep.previous_secret_iv,
         ep.previous_secret_tag, ep.previous_secret_kid, ep.secret_rotated_at
    FROM claimed c JOIN webhook_events ev ON ev.workspace_id = c.workspace_id AND ev.id = c.event_id
    JOIN webhook_endpoints ep ON ep.workspace_id = c.workspace_id AND ep.id = c.endpoint_id`;

/** Claims up to `limit` due deliveries for this process. */
export async function claimDue(limit: number): Promise<Claimed[]> {
  if (!(await onCitus())) return claimDueOf(undefined, limit);
  // on Citus a row lock needs a statement routed to one workspace's shard group
  const workspaces = await db().query<{ workspace_id: number }>(
    `SELECT workspace_id FROM webhook_deliveries WHERE status = 'PENDING' AND next_attempt_at <= :now
      GROUP BY workspace_id ORDER BY min(next_attempt_at) LIMIT :limit`,
    { replacements: { now: clock.now(), limit }, type: QueryTypes.SELECT },
  );
  const claimed: Claimed[] = [];
  for (const { workspace_id } of workspaces) {
    if (claimed.length >= limit) break;
    claimed.push(...(await claimDueOf(workspace_id, limit - claimed.length)));
  }
  return claimed;
}

/** Claims due deliveries of one workspace, or of all of them (`undefined`, plain PostgreSQL). */
function claimDueOf(workspaceId: number | undefined, limit: number): Promise<Claimed[]> {
  const now = clock.now();
  const ofWorkspace = (table: string) => (workspaceId === undefined ? '' : `AND ${table}.workspace_id = :workspaceId`);
  return db().query<Claimed>(
    `WITH due AS (
       SELECT id, workspace_id FROM webhook_deliveries WHERE status = 'PENDING' AND next_attempt_at <= :now ${ofWorkspace('webhook_deliveries')}
        ORDER BY next_attempt_at LIMIT :limit FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_deliveries d SET claim_token = :token, next_attempt_at = :leaseUntil
         FROM due WHERE d.id = due.id AND d.workspace_id = due.workspace_id ${ofWorkspace('d')}
       RETURNING d.id, d.workspace_id, d.claim_token, d.attempts, d.endpoint_id, d.event_id
     )${CLAIMED_SELECT}`,
    {
      replacements: { now, limit, workspaceId, token: randomUUID(), leaseUntil: new Date(now.getTime() + leaseMs()) },
      type: QueryTypes.SELECT,
    },
  );
}

/**
 * Claims one delivery (of workspace `workspaceId`) for an attempt made now (manual retry, test), in the caller's transaction,
 * whatever its status; 409 while another attempt at it is in flight.
 */
export async function claimOne(tx: Transaction, deliveryId: string, workspaceId: number): Promise<Claimed> {
  const now = clock.now();
  const [inFlight] = await db().query<{ busy: boolean }>(
    `SELECT claim_token IS NOT NULL AND next_attempt_at > :now AS busy FROM webhook_deliveries WHERE id = :id AND workspace_id = :ws FOR UPDATE`,
    { replacements: { id: deliveryId, ws: workspaceId, now }, type: QueryTypes.SELECT, transaction: tx },
  );
  if (inFlight?.busy) throw new AppError('CONFLICT', 'An attempt at this delivery is in progress');
  const rows = await db().query<Claimed>(
    `WITH claimed AS (
       UPDATE webhook_deliveries SET status = 'PENDING', claim_token = :token, next_attempt_at = :leaseUntil
        WHERE id = :id AND workspace_id = :ws
       RETURNING id, workspace_id, claim_token, attempts, endpoint_id, event_id
     )${CLAIMED_SELECT}`,
    {
      replacements: { id: deliveryId, ws: workspaceId, token: randomUUID(), leaseUntil: new Date(now.getTime() + leaseMs()) },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return rows[0];
}

/** The delivered body: the event as the contract shows it. */
export const eventBody = (c: Pick<Claimed, 'event_id' | 'event_type' | 'workspace_id' | 'event_created_at' | 'event_data'>): string =>
  JSON.stringify({
    id: c.event_id,
    type: c.event_type,
    workspaceId: c.workspace_id,
    createdAt: c.event_created_at.toISOString(),
    data: c.event_data,
  });

const clip = (message: string) => message.slice(0, 1000);

function failure(c: Claimed, base: Omit<Outcome, 'status' | 'next'>, retryAfter: number | null, now: Date): Outcome {
  const schedule = runtime().config.WEBHOOK_RETRY_SCHEDULE;
  const attemptNo = c.attempts + 1; // attempts made so far, this one included
  const delay = schedule[attemptNo - 1];
  if (delay === undefined) return { ...base, status: 'FAILED', next: null };
  const seconds = Math.max(delay, Math.min(retryAfter ?? 0, MAX_RETRY_AFTER_SECONDS));
  return { ...base, status: 'PENDING', next: new Date(now.getTime() + seconds * 1000).toISOString() };
}

/** Host resolution within the attempt's time limit. */
function withinTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/** Makes one attempt at a claimed delivery and says how it ended (never throws). */
export async function attempt(c: Claimed, manual = false): Promise<Outcome> {
  const outcome = await attemptCaught(c, manual);
  if (outcome.sent === 1) {
    const lagSeconds = (clock.now().getTime() - new Date(c.event_created_at).getTime()) / 1000;
    recordWebhookAttempt({ succeeded: outcome.status === 'SUCCEEDED', gaveUp: outcome.status === 'FAILED', lagSeconds });
  }
  return outcome;
}

async function attemptCaught(c: Claimed, manual: boolean): Promise<Outcome> {
  try {
    return await attemptOnce(c, manual);
  } catch (err) {
    // e.g. a secret sealed under a key no longer in CREDENTIALS_KEYS: the operator must act; keep retrying
    runtime().logger.error({ err, deliveryId: c.id }, 'webhook delivery attempt failed unexpectedly');
    return failure(
      c,
      { id: c.id, token: c.claim_token, sent: 1, code: null, error: 'internal error preparing the delivery', at: null },
      null,
      clock.now(),
    );
  }
}

async function attemptOnce(c: Claimed, manual: boolean): Promise<Outcome> {
  const base = { id: c.id, token: c.claim_token, code: null, error: null, at: null };
  if (!c.is_active && !manual) {
    return { ...base, sent: 0, status: 'FAILED', next: null, error: 'the endpoint is disabled' };
  }
  const { WEBHOOK_TIMEOUT_MS: timeoutMs } = runtime().config;
  const startedAt = clock.now();
  let url: URL;
  let target;
  try {
    url = parseWebhookUrl(c.url);
    target = await withinTimeout(resolveWebhookHost(url), timeoutMs, 'resolving the host');
  } catch (err) {
    const unsent = {
      ...base,
      sent: 1 as const,
      at: startedAt.toISOString(),
      error: clip(err instanceof Error ? err.message : String(err)),
    };
    // a host the guard refuses fails at once; one that does not resolve now may later
    if (err instanceof AppError && !/does not resolve/.test(unsent.error)) return { ...unsent, status: 'FAILED', next: null };
    return failure(c, unsent, null, clock.now());
  }
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const body = eventBody(c);
  const headers = signedHeaders(signingSecrets(c.endpoint_id, c, startedAt), c.event_id, timestamp, body);
  const result = await post(url, target, { ...headers }, body, timeoutMs, clock.now);
  const now = clock.now();
  const sent = { ...base, sent: 1 as const, at: startedAt.toISOString() };
  if (result.kind === 'error') return failure(c, { ...sent, error: clip(result.message) }, null, now);
  const { status } = result;
  if (status >= 200 && status < 300) return { ...sent, code: status, status: 'SUCCEEDED', next: null };
  if (status === 410) {
    const reason = `The endpoint answered 410 Gone at ${now.toISOString()}`;
    return { ...sent, code: status, status: 'FAILED', next: null, error: reason, disable: { endpointId: c.endpoint_id, reason } };
  }
  const error =
    status >= 300 && status < 400
      ? `redirect (${status})${result.location ? ` to ${result.location}` : ''} not followed`
      : `the endpoint answered ${status}`;
  const retryAfter = status === 429 || status === 503 ? result.retryAfterSeconds : null;
  return failure(c, { ...sent, code: status, error: clip(error) }, retryAfter, now);
}

/** Writes the outcomes of a batch (only for claims still ours) and disables endpoints that answered 410. */
export async function recordOutcomes(outcomes: readonly Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const disables = new Map(outcomes.filter((o) => o.disable).map((o) => [o.disable!.endpointId, o.disable!.reason]));
  const write = async (tx?: Transaction) => {
    await db().query(
      `UPDATE webhook_deliveries d
          SET status = r.status, attempts = d.attempts + r.sent, last_status_code = r.code, last_error = r.error,
              last_attempt_at = COALESCE(r.at, d.last_attempt_at), next_attempt_at = r.next, claim_token = NULL
         FROM jsonb_to_recordset($1::jsonb)
              AS r(id uuid, token uuid, status text, sent int, code int, error text, at timestamptz, next timestamptz)
        WHERE d.id = r.id AND d.claim_token = r.token`,
      { bind: [JSON.stringify(outcomes.map(({ disable: _, ...o }) => o))], transaction: tx },
    );
    const now = clock.now();
    for (const [endpointId, reason] of disables) {
      await db().query(
        `UPDATE webhook_endpoints SET is_active = false, disabled_reason = :reason, updated_at = :now WHERE id = :id AND is_active`,
        { replacements: { id: endpointId, reason, now }, transaction: tx },
      );
    }
    await failPendingDeliveries(tx, [...disables.keys()], 'the endpoint was disabled (it answered 410 Gone)', now);
  };
  if (disables.size === 0) await write();
  else await transaction(write);
}
