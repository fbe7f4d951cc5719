import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { runtime } from '../../../server/runtime.js';
import {
  DISPATCH_CRON,
  DISPATCH_QUEUE,
  dispatchDuePulls,
  lastFireTime,
  PULL_QUEUE,
  runScheduledPull,
  startSyncScheduler,
  type SyncScheduler,
} from '../../../server/domains/accounting/sync/scheduled-pulls.js';
import { getEntry } from '../../support/entries.js';
import { startServer, type Api } from '../../support/http.js';
import { syncedEntry, syncWorld, type SyncWorld } from '../../support/factories/index.js';
import { editExternally, startEmulators, stopEmulators, syncOf, type Emulators } from './helpers.js';

/**
 * Scheduled pulls (BIDIRECTIONAL, per syncScheduleCron) through pg-boss 10 on the test database:
 * the schedule is registered, the dispatcher claims each fire time once, the pull job applies
 * external changes, and the whole chain runs through real pg-boss workers.
 */
let api: Api;
let e: Emulators;
let scheduler: SyncScheduler;

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
  scheduler = await startSyncScheduler(runtime().config.DATABASE_URL!, { pollingIntervalSeconds: 0.5 });
});
afterAll(async () => {
  await scheduler?.stop();
  await stopEmulators(e);
});

const minutesFromNow = (m: number) => new Date(Date.now() + m * 60_000);
const lastPulledAt = async (connectionId: string) =>
  (
    await db().query<{ last_pulled_at: Date | null }>('SELECT last_pulled_at FROM accounting_connections WHERE id = :id', {
      replacements: { id: connectionId },
      type: QueryTypes.SELECT,
    })
  )[0].last_pulled_at;

describe('scheduled pulls', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await syncWorld(api, 'GENERIC', e, { syncMode: 'BIDIRECTIONAL', syncScheduleCron: '*/5 * * * *' });
  });

  it('pg-boss holds the dispatch schedule (every minute, UTC) and both queues', async () => {
    const schedules = await scheduler.boss.getSchedules();
    expect(schedules.find((s) => s.name === DISPATCH_QUEUE)).toMatchObject({ cron: DISPATCH_CRON, timezone: 'UTC' });
    const queues = (await scheduler.boss.getQueues()).map((q) => [q.name, q.policy]);
    expect(queues).toEqual(
      expect.arrayContaining([
        [DISPATCH_QUEUE, 'short'],
        [PULL_QUEUE, 'stately'],
      ]),
    );
  });

  it('the fire time of a cron is the latest one at or before now', () => {
    expect(lastFireTime('*/5 * * * *', new Date('2026-03-01T12:07:30Z'))?.toISOString()).toBe('2026-03-01T12:05:00.000Z');
    expect(lastFireTime('0 2 * * 1-5', new Date('2026-03-02T02:00:00Z'))?.toISOString()).toBe('2026-03-02T02:00:00.000Z');
    expect(lastFireTime('not a cron', new Date())).toBeNull();
  });

  it('dispatch: only active BIDIRECTIONAL connections whose cron fired since the last dispatch, each fire time once', async () => {
    const manualPush = await syncWorld(api, 'GENERIC', e, { syncMode: 'MANUAL_PUSH', syncScheduleCron: '* * * * *' });
    const inactive = await syncWorld(api, 'GENERIC', e, { syncMode: 'BIDIRECTIONAL', syncScheduleCron: '* * * * *' });
    await api.del(`/accounting/connections/${inactive.connection.id}`, { token: inactive.token });
    const noCron = await syncWorld(api, 'GENERIC', e, { syncMode: 'BIDIRECTIONAL' });
    const mine = [w.connection.id, manualPush.connection.id, inactive.connection.id, noCron.connection.id];

    const sent: string[] = [];
    const enqueue = async (id: string) => void sent.push(id);
    // not yet fired since the connection was created
    await dispatchDuePulls(new Date(), enqueue);
    expect(sent.filter((id) => mine.includes(id))).toEqual([]);
    // a fire time later: dispatched once, however often the dispatcher runs for it
    const later = minutesFromNow(10);
    await Promise.all([dispatchDuePulls(later, enqueue), dispatchDuePulls(later, enqueue), dispatchDuePulls(later, enqueue)]);
    expect(sent.filter((id) => mine.includes(id))).toEqual([w.connection.id]);
    // the next fire time is dispatched again
    await dispatchDuePulls(minutesFromNow(16), enqueue);
    expect(sent.filter((id) => mine.includes(id))).toEqual([w.connection.id, w.connection.id]);
  });

  it('the pull job applies external changes (as a pull does) and notes its outcome', async () => {
    const { entry, sync } = await syncedEntry(w, { description: 'local' });
    await runScheduledPull(w.connection.id);
    editExternally(w, sync.externalId, { description: 'changed externally' });
    await runScheduledPull(w.connection.id);
    expect((await getEntry(w, entry.id)).description).toBe('changed externally');
    expect((await syncOf(w, entry.id)).status).toBe('SYNCED');
    const [state] = await db().query<any>('SELECT * FROM accounting_pull_schedule WHERE connection_id = :id', {
      replacements: { id: w.connection.id },
      type: QueryTypes.SELECT,
    });
    expect(state).toMatchObject({ last_error: null });
    expect(state.last_finished_at).toBeInstanceOf(Date);
  });

  it('through pg-boss: a dispatched fire time runs the pull on a worker', async () => {
    const bw = await syncWorld(api, 'GENERIC', e, { syncMode: 'BIDIRECTIONAL', syncScheduleCron: '0 * * * *' });
    const { entry, sync } = await syncedEntry(bw, { description: 'before' });
    await new Promise((r) => setTimeout(r, 5));
    editExternally(bw, sync.externalId, { description: 'after' });
    expect(await lastPulledAt(bw.connection.id)).toBeNull();
    // what the dispatcher's enqueue does
    await dispatchDuePulls(minutesFromNow(61), (connectionId) =>
      scheduler.boss.send(PULL_QUEUE, { connectionId }, { singletonKey: connectionId }),
    );
    const deadline = Date.now() + 15_000;
    while ((await getEntry(bw, entry.id)).description !== 'after' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect((await getEntry(bw, entry.id)).description).toBe('after');
    expect(await lastPulledAt(bw.connection.id)).toBeInstanceOf(Date);
  });

  it('the pull queue keeps at most one queued job per connection (stately, singletonKey = connection id)', async () => {
    const key = '00000000-0000-4000-8000-00000000beef';
    const later = { singletonKey: key, startAfter: 3600 };
    const first = await scheduler.boss.send(PULL_QUEUE, { connectionId: key }, later);
    const second = await scheduler.boss.send(PULL_QUEUE, { connectionId: key }, later);
    const other = await scheduler.boss.send(PULL_QUEUE, { connectionId: key }, { ...later, singletonKey: `${key}-other` });
    expect(first).toEqual(expect.any(String));
    expect(second).toBeNull();
    expect(other).toEqual(expect.any(String));
    await scheduler.boss.cancel(PULL_QUEUE, [first!, other!]);
  });

  it('a connection that is no longer BIDIRECTIONAL is not pulled by a job still queued for it', async () => {
    const cw = await syncWorld(api, 'GENERIC', e, { syncMode: 'BIDIRECTIONAL', syncScheduleCron: '* * * * *' });
    await api.patch(`/accounting/connections/${cw.connection.id}`, { syncMode: 'AUTO_PUSH' }, { token: cw.token });
    await runScheduledPull(cw.connection.id);
    expect(await lastPulledAt(cw.connection.id)).toBeNull();
  });
});
