import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { runtime } from '../../server/runtime.js';
import { DUE_QUEUE, runDueRecurring, startRecurringScheduler } from '../../server/domains/recurring/index.js';
import { todayUtc } from '../../server/lib/dates.js';
import { startServer, type Api } from '../support/http.js';
import { entryWorld, type EntryWorld } from '../support/factories/index.js';
import { createRecurring, occurrences } from './helpers.js';

/**
 * CONTRACT §25: the scheduler (pg-boss) makes every due occurrence at start-up, catching up oldest first, and each
 * occurrence once whatever the instances: three schedulers start together against one database, while three more
 * runs race them, and every occurrence is found once.
 */
let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});

const daysSince = (date: string) => Math.round((Date.parse(`${todayUtc()}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)) / 86_400_000) + 1;
const daysAgo = (n: number) => new Date(Date.parse(`${todayUtc()}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

describe('the recurring scheduler', () => {
  it('three instances starting together make each due occurrence once, oldest first', async () => {
    const start = daysAgo(40);
    const daily = await createRecurring(w, { rrule: 'FREQ=DAILY', startDate: start });
    const weekly = await createRecurring(w, { rrule: 'FREQ=WEEKLY;INTERVAL=2', startDate: start });
    const schedulers = await Promise.all(
      [1, 2, 3].map(() => startRecurringScheduler(runtime().config.DATABASE_URL!, { pollingIntervalSeconds: 0.5 })),
    );
    try {
      const runs = await Promise.all([runDueRecurring(), runDueRecurring(), runDueRecurring()]);
      expect((await schedulers[0].boss.getSchedules()).map((s) => s.name)).toContain(DUE_QUEUE);

      const made = () =>
        db().query<{ recurring_entry_id: string; occurrence_date: string; id: number }>(
          `SELECT recurring_entry_id, occurrence_date::text, id FROM entries WHERE workspace_id = :ws ORDER BY id`,
          { replacements: { ws: w.workspaceId }, type: QueryTypes.SELECT },
        );
      // the schedulers' start-up catch-up is a queued job (not awaited by the start): a run beside it skips the
      // recurring entries it is making, so wait until every due occurrence is there (or the deadline)
      const due = daysSince(start) + Math.floor((daysSince(start) - 1) / 14) + 1;
      const deadline = Date.now() + 60_000;
      let rows = await made();
      while (rows.length < due && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        rows = await made();
      }
      const dailyRows = rows.filter((r) => r.recurring_entry_id === daily.id);
      const weeklyRows = rows.filter((r) => r.recurring_entry_id === weekly.id);
      expect(dailyRows).toHaveLength(daysSince(start));
      expect(weeklyRows).toHaveLength(Math.floor((daysSince(start) - 1) / 14) + 1);
      expect(new Set(rows.map((r) => `${r.recurring_entry_id}:${r.occurrence_date}`)).size).toBe(rows.length);
      // oldest first: ids follow the dates within each recurring entry
      for (const list of [dailyRows, weeklyRows]) {
        expect(list.map((r) => r.occurrence_date)).toEqual([...list.map((r) => r.occurrence_date)].sort());
      }
      // the three runs beside the schedulers found at most what was left; none made anything twice
      expect(runs.reduce((n, r) => n + r.created, 0)).toBeLessThanOrEqual(rows.length);
      const listed = await occurrences(w, daily.id, start, todayUtc());
      expect(listed.every((o) => o.status === 'CREATED')).toBe(true);
      expect(listed).toHaveLength(daysSince(start));
      // held by PostgreSQL, whatever the code: a second row for a made occurrence is refused
      const first = dailyRows[0];
      await expect(
        db().query(
          `INSERT INTO recurring_occurrences (recurring_entry_id, workspace_id, occurrence_date, status, reason)
           VALUES (:id, :ws, :date, 'SKIPPED', 'again')`,
          { replacements: { id: daily.id, ws: w.workspaceId, date: first.occurrence_date } },
        ),
      ).rejects.toMatchObject({ name: 'SequelizeUniqueConstraintError' });
      const next = await api.get(`/recurring-entries/${daily.id}`, { token: w.token });
      expect(next.body.nextOccurrence).toBe(daysAgo(-1));
    } finally {
      await Promise.all(schedulers.map((s) => s.stop()));
    }
  }, 120_000);
});

describe('a catch-up of many dates', () => {
  it('commits a few dates at a time (the rows its creates reference are not held for the whole catch-up), each date once', async () => {
    const v = await entryWorld(api);
    const start = daysAgo(299);
    const daily = await createRecurring(v, { rrule: 'FREQ=DAILY', startDate: start });
    const committed = () =>
      db()
        .query<{ n: number }>(`SELECT count(*)::int AS n FROM entries WHERE recurring_entry_id = :id`, {
          replacements: { id: daily.id },
          type: QueryTypes.SELECT,
        })
        .then(([row]) => row.n);
    let finished = false;
    const run = runDueRecurring().finally(() => (finished = true));
    const seen = new Set<number>();
    while (!finished) {
      seen.add(await committed());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const made = await run;
    expect(made.created).toBe(300);
    // seen from outside while it ran: made dates committed before the last ones were made
    expect([...seen].some((n) => n > 0 && n < 300)).toBe(true);
    const listed = await occurrences(v, daily.id, start, todayUtc());
    expect(listed).toHaveLength(300);
    expect(listed.every((o) => o.status === 'CREATED')).toBe(true);
    expect(new Set(listed.map((o) => o.entryId)).size).toBe(300);
    expect(await committed()).toBe(300);
  }, 300_000);
});

describe('at start-up', () => {
  it('a scheduler alone catches up what is due (its start-up job), without a tick or a run', async () => {
    const v = await entryWorld(api);
    const start = daysAgo(5);
    const daily = await createRecurring(v, { rrule: 'FREQ=DAILY', startDate: start });
    const scheduler = await startRecurringScheduler(runtime().config.DATABASE_URL!, { pollingIntervalSeconds: 0.5 });
    try {
      const deadline = Date.now() + 60_000;
      let listed = await occurrences(v, daily.id, start, todayUtc());
      while (listed.some((o) => o.status !== 'CREATED') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        listed = await occurrences(v, daily.id, start, todayUtc());
      }
      expect(listed.map((o) => [o.occurrenceDate, o.status])).toEqual(Array.from({ length: 6 }, (_, i) => [daysAgo(5 - i), 'CREATED']));
    } finally {
      await scheduler.stop();
    }
  }, 120_000);
});
