import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { closedPeriodNameSql } from '../../server/domains/periods/index.js';
import { closePeriod, createPeriod, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/**
 * The service's closed-period condition (closedPeriodNameSql, written out so Citus can run it on a shard) and
 * PostgreSQL's own (closed_period_name, migration 0023, which the triggers call) name the same period for every
 * day: inside, on and beside the bounds of closed, open and other workspaces' periods.
 */
let api: Api;
let w: EntryWorld;
let other: EntryWorld;

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
  other = await entryWorld(api);
  await closePeriod(api, w.token, w.workspaceId, '2025-01-01', '2025-01-31', 'January');
  await closePeriod(api, w.token, w.workspaceId, '2025-03-01', '2025-03-31', 'March');
  await createPeriod(api, w.token, w.workspaceId, '2025-02-01', '2025-02-28', 'February (open)');
  await closePeriod(api, other.token, other.workspaceId, '2025-02-01', '2025-02-28', 'Other February');
});

describe('closedPeriodNameSql', () => {
  it('names the period closed_period_name names, day by day', async () => {
    // two statements: on Citus (TEST_CITUS=1) the function cannot run inside a statement routed to a shard
    const namesBy = (expression: string) =>
      db().query<{ day: string; name: string | null }>(
        `SELECT d::date::text AS day, ${expression} AS name FROM generate_series('2024-12-30'::date, '2025-04-02'::date, '1 day') d`,
        { replacements: { ws: w.workspaceId }, type: QueryTypes.SELECT },
      );
    const database = await namesBy('closed_period_name(:ws, d::date)');
    const rows = (await namesBy(closedPeriodNameSql(':ws', 'd::date'))).map((r, i) => ({
      day: r.day,
      service: r.name,
      database: database[i].name,
    }));
    expect(rows).toHaveLength(94);
    for (const r of rows) expect(r.service, r.day).toBe(r.database);
    const named = (day: string) => rows.find((r) => r.day === day)!.service;
    expect([named('2024-12-31'), named('2025-01-01'), named('2025-01-31'), named('2025-02-15'), named('2025-03-31')]).toEqual([
      null,
      'January',
      'January',
      null,
      'March',
    ]);
  });
});
