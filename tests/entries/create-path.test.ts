import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, transaction } from '../../server/db/database.js';
import { lockPeriodsExclusive } from '../../server/domains/periods/period-lock.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { closePeriod, createPeriod, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { listIds } from '../support/entries.js';

/**
 * The create's period check (CONTRACT §7) folded into its first statement (migration 0019): it must see a
 * close or a reopen that committed while the create waited for the shared period lock.
 */
let api: Api;
beforeAll(async () => {
  api = await startServer();
});

/** Whether a transaction waits for workspace `ws`'s period lock (two int4 keys: classid 4201, objid ws). */
async function waitingForPeriodLock(ws: number): Promise<boolean> {
  const [row] = await db().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks
      WHERE locktype = 'advisory' AND NOT granted AND classid = 4201 AND objid = :ws AND objsubid = 2`,
    { replacements: { ws }, type: QueryTypes.SELECT },
  );
  return row.n > 0;
}

/** Runs `change` on the period holding the exclusive period lock, while a POST /entries dated in it waits; returns its response. */
async function createWhile(w: EntryWorld, change: string, periodId: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const lockHeld = new Promise<void>((resolve) => (held = resolve));
  const closing = transaction(async (tx) => {
    await lockPeriodsExclusive(tx, w.workspaceId);
    await db().query(change, { replacements: { id: periodId }, transaction: tx });
    held();
    await released;
  });
  await lockHeld;
  const creating = api.post(
    '/entries',
    { projectId: w.projectId, entryType: 'EXPENSE', amountCents: 500, baseCurrency: 'USD', entryDate: '2026-03-15' },
    { token: w.token },
  );
  for (let i = 0; i < 200 && !(await waitingForPeriodLock(w.workspaceId)); i++) await new Promise((r) => setTimeout(r, 25));
  expect(await waitingForPeriodLock(w.workspaceId)).toBe(true);
  release();
  await closing;
  return creating;
}

describe('POST /entries and a period closed or reopened meanwhile', () => {
  it('a create that waited while its period was being closed answers 409 and writes nothing', async () => {
    const w = await entryWorld(api);
    const period = await createPeriod(api, w.token, w.workspaceId, '2026-03-01', '2026-03-31', 'March');
    const res = await createWhile(w, `UPDATE accounting_periods SET status = 'CLOSED', closed_at = now() WHERE id = :id`, period.id);
    expectErrorBody(res, 409, 'CONFLICT');
    expect(res.body.message).toContain('March');
    expect(await listIds(api, w.token, { workspaceId: w.workspaceId })).toEqual([]);
  });

  it('a create that waited while its period was being reopened is created', async () => {
    const w = await entryWorld(api);
    const period = await closePeriod(api, w.token, w.workspaceId, '2026-03-01', '2026-03-31', 'March');
    const res = await createWhile(
      w,
      `UPDATE accounting_periods SET status = 'OPEN', closed_at = NULL, closed_by = NULL WHERE id = :id`,
      period.id,
    );
    expect(res.status, res.text).toBe(200);
    expect(await listIds(api, w.token, { workspaceId: w.workspaceId })).toEqual([res.body.id]);
  });
});
