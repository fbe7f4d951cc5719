import PgBoss from 'pg-boss';
import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../db/database.js';
import { pgConnectionOf } from '../../db/hosts.js';
import { withStartupLock } from '../../db/startup-lock.js';
import { todayUtc } from '../../lib/dates.js';
import { runtime } from '../../runtime.js';
import { makeDue } from './occurrences.js';

/**
 * The scheduler of recurring entries (CONTRACT §25), on pg-boss in the service's own PostgreSQL like the other
 * background work: DUE_QUEUE runs every 15 minutes (pg-boss sends each cron tick once, however many instances) and
 * once at each start, catching up every date missed while no instance ran, oldest first. Each recurring entry is
 * made under its row lock (SKIP LOCKED here: an instance busy with one is not waited for), and each occurrence is
 * held at most once by PostgreSQL's keys (occurrences.ts), so instances, restarts and races make it once.
 */
export const DUE_QUEUE = 'recurring-entries-due';
const DUE_CRON = '*/15 * * * *';
const BATCH = 200;
const OCCURRENCES_PER_TRANSACTION = 50;

export type DueRun = { created: number; skipped: number; entries: number };

/** Makes every due occurrence of every active recurring entry through `through` (default today, UTC). */
export async function runDueRecurring(through = todayUtc()): Promise<DueRun> {
  const run: DueRun = { created: 0, skipped: 0, entries: 0 };
  const seen = new Set<string>();
  for (;;) {
    const rows = await db().query<{ id: string }>(
      `SELECT id FROM recurring_entries WHERE is_active AND next_occurrence <= :through AND NOT (id = ANY(CAST(:seen AS uuid[])))
        ORDER BY next_occurrence, id LIMIT :limit`,
      { replacements: { through, seen: `{${[...seen].join(',')}}`, limit: BATCH }, type: QueryTypes.SELECT },
    );
    for (const { id } of rows) {
      seen.add(id);
      try {
        // a transaction per OCCURRENCES_PER_TRANSACTION dates: an entry started years back makes thousands, and one
        // transaction holding them all held its creator's and key's rows (FOR KEY SHARE) for minutes
        for (let more = true; more; ) {
          const made = await transaction((tx) => makeDue(tx, id, through, { skipLocked: true, limit: OCCURRENCES_PER_TRANSACTION }));
          run.created += made.created;
          run.skipped += made.skipped;
          more = made.more;
        }
        run.entries++;
      } catch (err) {
        runtime().logger.warn({ err, recurringEntryId: id }, 'recurring entry not made; it stays due');
      }
    }
    if (rows.length < BATCH) return run;
  }
}

export type RecurringScheduler = { boss: PgBoss; stop: () => Promise<void> };

/** Starts pg-boss on `databaseUrl` with the due schedule and its worker, and queues the making of what is due now. */
export async function startRecurringScheduler(
  databaseUrl: string,
  opts: { pollingIntervalSeconds?: number; schema?: string } = {},
): Promise<RecurringScheduler> {
  const schema = opts.schema ?? 'pgboss';
  const connection = pgConnectionOf(databaseUrl);
  const boss = new PgBoss({ ...connection, schema, max: 2, application_name: 'finance-entries-recurring' });
  boss.on('error', (err) => runtime().logger.error({ err }, 'pg-boss error (recurring)'));
  // pg-boss creates queues without a lock: instances starting together take turns (as the other schedulers)
  await withStartupLock(connection, `pg-boss in ${schema}`, async () => {
    await boss.start();
    await boss.createQueue(DUE_QUEUE, { name: DUE_QUEUE, policy: 'short', retryLimit: 0 });
    await boss.schedule(DUE_QUEUE, DUE_CRON, {}, { tz: 'UTC' });
  });
  const due = async () => {
    await runDueRecurring();
  };
  await boss.work(DUE_QUEUE, { pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 2 }, due);
  // the start-up catch-up is a job like the ticks, not awaited here: a recurring entry started years ago makes
  // thousands of occurrences, and the instance must be ready (and stoppable) meanwhile
  await boss.send(DUE_QUEUE, {});
  return { boss, stop: () => boss.stop({ graceful: true, wait: true, timeout: 10_000 }) };
}
