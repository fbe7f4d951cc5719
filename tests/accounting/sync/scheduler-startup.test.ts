import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { runtime } from '../../../server/runtime.js';
import { DISPATCH_QUEUE, PULL_QUEUE, startSyncScheduler } from '../../../server/domains/accounting/sync/scheduled-pulls.js';

/**
 * Instances of a rollout start at once on one database: each starts the scheduler, which creates
 * pg-boss's queues (a row in <schema>.queue plus a partition attached to <schema>.job, DDL that
 * pg-boss 10 does not serialize: without a lock of ours this deadlocked in every round). Each
 * round here starts four schedulers together on a pg-boss schema nobody has used, as the first
 * rollout on an empty database does.
 */
const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await db().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

/** pg-boss's own queue, created on start, through which its cron schedules send their jobs */
const PG_BOSS_SCHEDULE_QUEUE = '__pgboss__send-it';
const INSTANCES = 4;
const ROUNDS = 5;

describe('scheduler start on a fresh database', () => {
  it(`${INSTANCES} instances starting at once, ${ROUNDS} times: all start, each queue and the schedule exist once`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const schema = `pgboss_race_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      const started = await Promise.allSettled(
        Array.from({ length: INSTANCES }, () => startSyncScheduler(runtime().config.DATABASE_URL!, { schema, pollingIntervalSeconds: 30 })),
      );
      const schedulers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      await Promise.all(schedulers.map((s) => s.stop()));
      const failures = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
      expect(failures, `round ${round}`).toEqual([]);

      const queues = await db().query<{ name: string; partitions: number }>(
        `SELECT q.name, (SELECT count(*)::int FROM pg_inherits i
                          WHERE i.inhparent = '${schema}.job'::regclass
                            AND i.inhrelid = to_regclass(format('%I.%I', '${schema}', q.partition_name))) AS partitions
           FROM ${schema}.queue q ORDER BY q.name COLLATE "C"`,
        { type: QueryTypes.SELECT },
      );
      expect(queues).toEqual([PG_BOSS_SCHEDULE_QUEUE, DISPATCH_QUEUE, PULL_QUEUE].sort().map((name) => ({ name, partitions: 1 })));
      const schedules = await db().query<{ name: string }>(`SELECT name FROM ${schema}.schedule`, { type: QueryTypes.SELECT });
      expect(schedules).toEqual([{ name: DISPATCH_QUEUE }]);
    }
  }, 120_000);
});
