import { CronExpressionParser } from 'cron-parser';
import PgBoss from 'pg-boss';
import { QueryTypes } from 'sequelize';
import { db } from '../../../db/database.js';
import { onCitus, sameWorkspace } from '../../../db/distributed.js';
import { withStartupLock } from '../../../db/startup-lock.js';
import { pgConnectionOf } from '../../../db/hosts.js';
import { clock } from '../../../lib/clock.js';
import { runtime } from '../../../runtime.js';
import { pullConnection } from './pull.js';

/**
 * Scheduled pulls of BIDIRECTIONAL connections, per their `syncScheduleCron`, through pg-boss on
 * the service's own PostgreSQL (schema `pgboss`), safe with several server instances:
 *
 * - one pg-boss schedule, DISPATCH_QUEUE every minute (pg-boss sends each cron tick once, however
 *   many instances run); its job asks, for every active BIDIRECTIONAL connection, whether its cron
 *   has fired since the fire time last dispatched, and claims that fire time with one conditional
 *   upsert (accounting_pull_schedule), so a fire time is dispatched once even if two dispatchers ran;
 * - each claimed fire time sends a PULL_QUEUE job with the connection id as singletonKey on a
 *   `stately` queue: at most one queued and one running pull per connection across all instances.
 *
 * Five-field crons have minute resolution, so a per-minute dispatcher runs each fire time; one
 * missed while no instance ran is caught up once at the next dispatch (the pull takes every change
 * since lastPulledAt, so nothing is lost).
 */

export const DISPATCH_QUEUE = 'accounting-sync-dispatch';
export const PULL_QUEUE = 'accounting-sync-pull';
export const DISPATCH_CRON = '* * * * *';

type Due = { id: string; workspace_id: number; sync_schedule_cron: string; created_at: Date; last_fire_at: Date | null };

/** The latest fire time of `cron` at or before `now` (UTC), or null when the expression does not parse. */
export function lastFireTime(cron: string, now: Date): Date | null {
  try {
    return CronExpressionParser.parse(cron, { currentDate: new Date(now.getTime() + 1), tz: 'UTC' })
      .prev()
      .toDate();
  } catch {
    return null;
  }
}

/** The connections a schedule pulls (alias c). */
const SCHEDULED = `c.is_active AND c.sync_mode = 'BIDIRECTIONAL' AND c.sync_schedule_cron IS NOT NULL`;

/** The scheduled connections with the fire time last dispatched, of one workspace or of all (`undefined`, plain PostgreSQL). */
function candidatesOf(workspaceId: number | undefined): Promise<Due[]> {
  const ofWorkspace = workspaceId === undefined ? '' : `AND c.workspace_id = :workspaceId`;
  return db().query<Due>(
    `SELECT c.id, c.workspace_id, c.sync_schedule_cron, c.created_at, s.last_fire_at
       FROM accounting_connections c LEFT JOIN accounting_pull_schedule s ON s.connection_id = c.id${workspaceId === undefined ? '' : sameWorkspace('s', 'c')}
      WHERE ${SCHEDULED} ${ofWorkspace}
      ORDER BY c.id`,
    { replacements: { workspaceId }, type: QueryTypes.SELECT },
  );
}

/**
 * Claims every due fire time and hands the connection to `enqueue`; returns the connection ids
 * dispatched. A connection is due when its cron fired after the fire time last dispatched for it
 * (or, never dispatched, after the connection was created).
 */
export async function dispatchDuePulls(now: Date, enqueue: (connectionId: string) => Promise<unknown>): Promise<string[]> {
  let candidates: Due[];
  if (!(await onCitus())) candidates = await candidatesOf(undefined);
  else {
    // on Citus a join of two tenant tables must name the workspace (its distribution column): workspace by workspace
    const workspaces = await db().query<{ workspace_id: number }>(
      `SELECT DISTINCT c.workspace_id FROM accounting_connections c WHERE ${SCHEDULED} ORDER BY 1`,
      { type: QueryTypes.SELECT },
    );
    candidates = [];
    for (const { workspace_id } of workspaces) candidates.push(...(await candidatesOf(workspace_id)));
  }
  const dispatched: string[] = [];
  for (const c of candidates) {
    const fire = lastFireTime(c.sync_schedule_cron, now);
    if (!fire || fire <= (c.last_fire_at ?? c.created_at)) continue;
    const claimed = await db().query(
      `INSERT INTO accounting_pull_schedule (connection_id, workspace_id, last_fire_at) VALUES (:id, :ws, :fire)
       ON CONFLICT ON CONSTRAINT accounting_pull_schedule_pkey DO UPDATE SET last_fire_at = EXCLUDED.last_fire_at
        WHERE accounting_pull_schedule.last_fire_at < EXCLUDED.last_fire_at
       RETURNING connection_id`,
      { replacements: { id: c.id, ws: c.workspace_id, fire }, type: QueryTypes.SELECT },
    );
    if (claimed.length === 0) continue; // another dispatcher took this fire time
    await enqueue(c.id);
    dispatched.push(c.id);
  }
  return dispatched;
}

/** The PULL_QUEUE job: pulls the connection if it is still active and BIDIRECTIONAL, and notes the outcome. */
export async function runScheduledPull(connectionId: string): Promise<void> {
  const [c] = await db().query<{ is_active: boolean; sync_mode: string; workspace_id: number }>(
    'SELECT is_active, sync_mode, workspace_id FROM accounting_connections WHERE id = :id',
    {
      replacements: { id: connectionId },
      type: QueryTypes.SELECT,
    },
  );
  if (!c?.is_active || c.sync_mode !== 'BIDIRECTIONAL') return;
  let lastError: string | null = null;
  try {
    const result = await pullConnection(connectionId);
    runtime().logger.info({ connectionId, ...result }, 'scheduled pull');
  } catch (err) {
    lastError = (err instanceof Error ? err.message : String(err)).slice(0, 4000);
    runtime().logger.warn({ connectionId, err: lastError }, 'scheduled pull failed');
  }
  await db().query(
    'UPDATE accounting_pull_schedule SET last_finished_at = :now, last_error = :lastError WHERE connection_id = :id AND workspace_id = :ws',
    { replacements: { id: connectionId, ws: c.workspace_id, now: clock.now(), lastError } },
  );
}

export type SyncScheduler = { boss: PgBoss; stop: () => Promise<void> };

/** Starts pg-boss on `databaseUrl`, registers the dispatch schedule and both workers. */
export async function startSyncScheduler(
  databaseUrl: string,
  opts: { pollingIntervalSeconds?: number; schema?: string } = {},
): Promise<SyncScheduler> {
  const schema = opts.schema ?? 'pgboss';
  // pgConnectionOf: DATABASE_URL may name several hosts; pg-boss's pool then reconnects to the primary
  const connection = pgConnectionOf(databaseUrl);
  const boss = new PgBoss({ ...connection, schema, max: 3, application_name: 'finance-entries-sync' });
  boss.on('error', (err) => runtime().logger.error({ err }, 'pg-boss error'));
  // pg-boss 10 creates queues (its own on start, then ours: each a row plus a partition attached to
  // its job table) without a lock: instances doing so at once on a fresh database deadlock, so
  // they take turns
  await withStartupLock(connection, `pg-boss in ${schema}`, async () => {
    await boss.start();
    await boss.createQueue(DISPATCH_QUEUE, { name: DISPATCH_QUEUE, policy: 'short', retryLimit: 0 });
    await boss.createQueue(PULL_QUEUE, { name: PULL_QUEUE, policy: 'stately', retryLimit: 0, expireInSeconds: 15 * 60 });
    await boss.schedule(DISPATCH_QUEUE, DISPATCH_CRON, {}, { tz: 'UTC' });
  });
  const work = { pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 2 };
  await boss.work(DISPATCH_QUEUE, work, async () => {
    await dispatchDuePulls(clock.now(), (connectionId) => boss.send(PULL_QUEUE, { connectionId }, { singletonKey: connectionId }));
  });
  await boss.work<{ connectionId: string }>(PULL_QUEUE, work, async (jobs) => {
    for (const job of jobs) await runScheduledPull(job.data.connectionId);
  });
  return { boss, stop: () => boss.stop({ graceful: true, wait: true, timeout: 10_000 }) };
}
