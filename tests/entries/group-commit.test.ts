import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { CommitGroup } from '../../server/db/commit-group.js';
import { asPreview, db, withFirstTransactionHook, type Transaction } from '../../server/db/database.js';
import { AppError } from '../../server/lib/errors.js';
import { currentVia, runVia } from '../../server/lib/via.js';
import { createCommits } from '../../server/domains/entries/entries.service.js';
import { actor, buildWorkspace, buildParty, closePeriod } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/**
 * Group commit (issue 35): creates that arrive while every lane is busy share one transaction,
 * each keeping its own outcome. The lanes are held shut here by work that waits on a gate, so the
 * grouping does not depend on timing.
 */
const txid = async (tx: Transaction) =>
  Number((await db().query<{ x: string }>('SELECT txid_current()::text AS x', { type: QueryTypes.SELECT, transaction: tx }))[0].x);

const probe = (tx: Transaction | undefined, label: string) =>
  db().query('INSERT INTO group_commit_probe (label) VALUES (:label)', { replacements: { label }, transaction: tx });

const probes = async () =>
  (await db().query<{ label: string }>('SELECT label FROM group_commit_probe ORDER BY label', { type: QueryTypes.SELECT })).map(
    (r) => r.label,
  );

/** Holds every lane of `group` busy (once it is idle) until `release` is called. */
async function holdLanes(group: CommitGroup, lanes: number): Promise<{ release: () => void; done: Promise<unknown> }> {
  await expect.poll(() => group.busyLanes + group.queued, { timeout: 20_000, interval: 5 }).toBe(0);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const done = Promise.all(Array.from({ length: lanes }, () => group.run(() => gate)));
  expect([group.busyLanes, group.queued]).toEqual([lanes, 0]);
  return { release, done };
}

async function untilQueued(group: CommitGroup, n: number): Promise<void> {
  await expect.poll(() => group.queued, { timeout: 20_000, interval: 5 }).toBe(n);
}

beforeAll(async () => {
  await db().query('CREATE TABLE IF NOT EXISTS group_commit_probe (label text NOT NULL)');
});

describe('CommitGroup', () => {
  it('work that waited for a lane runs in one shared transaction; work that finds a lane free runs alone', async () => {
    const group = new CommitGroup({ name: 'test', lanes: 1, maxItems: 16 });
    const alone = await Promise.all([group.run(txid)]);
    const held = await holdLanes(group, 1);
    const waiting = Array.from({ length: 5 }, () => group.run(txid));
    await untilQueued(group, 5);
    held.release();
    const shared = await Promise.all(waiting);
    expect(new Set(shared).size).toBe(1);
    expect(shared[0]).not.toBe(alone[0]);
    expect(group.stats).toMatchObject({ groups: 1, largest: 5, fallbacks: 0 });
  });

  it('carries at most maxItems per transaction', async () => {
    const group = new CommitGroup({ name: 'test', lanes: 1, maxItems: 3 });
    const held = await holdLanes(group, 1);
    const waiting = Array.from({ length: 7 }, () => group.run(txid));
    await untilQueued(group, 7);
    held.release();
    const ids = await Promise.all(waiting);
    expect(ids.slice(0, 3).every((x) => x === ids[0])).toBe(true);
    expect(ids.slice(3, 6).every((x) => x === ids[3])).toBe(true);
    expect(new Set(ids).size).toBe(3); // 3 + 3 + the seventh alone
  });

  it('one failing piece rolls the group back and every piece goes again alone: the others commit once, the bad one gets its own error', async () => {
    await db().query('TRUNCATE group_commit_probe');
    const group = new CommitGroup({ name: 'test', lanes: 1, maxItems: 16 });
    const held = await holdLanes(group, 1);
    const hookRuns: string[] = [];
    const ok1 = withFirstTransactionHook(
      async (tx) => {
        hookRuns.push('ok1');
        await probe(tx, 'hook:ok1');
      },
      () =>
        group.run(async (tx) => {
          await probe(tx, 'ok1');
          return txid(tx);
        }),
    );
    const bad = group.run(async (tx) => {
      await probe(tx, 'bad');
      throw new AppError('CONFLICT', 'this one is refused');
    });
    const ok2 = group.run(async (tx) => {
      await probe(tx, 'ok2');
      return txid(tx);
    });
    await untilQueued(group, 3);
    held.release();
    const [a, b, c] = await Promise.allSettled([ok1, bad, ok2]);
    expect(a.status).toBe('fulfilled');
    expect(c.status).toBe('fulfilled');
    expect((a as PromiseFulfilledResult<number>).value).not.toBe((c as PromiseFulfilledResult<number>).value);
    expect(b.status).toBe('rejected');
    expect((b as PromiseRejectedResult).reason).toMatchObject({ message: 'this one is refused' });
    // the rolled-back group left nothing; the hook (the idempotency mark) committed once, with its work
    expect(await probes()).toEqual(['hook:ok1', 'ok1', 'ok2']);
    expect(hookRuns).toEqual(['ok1', 'ok1']);
    expect(group.stats).toMatchObject({ groups: 0, fallbacks: 1 });
  });

  it('runs each piece in its caller’s async context, and never groups a preview', async () => {
    await db().query('TRUNCATE group_commit_probe');
    const group = new CommitGroup({ name: 'test', lanes: 1, maxItems: 16 });
    const held = await holdLanes(group, 1);
    const viaMcp = runVia('mcp', () => group.run(async () => currentVia() ?? 'none'));
    const plain = group.run(async () => currentVia() ?? 'none');
    await untilQueued(group, 2);
    held.release();
    expect(await Promise.all([viaMcp, plain])).toEqual(['mcp', 'none']);
    const preview = await asPreview(() => group.run((tx) => probe(tx, 'preview')));
    expect(preview.settled.status).toBe('fulfilled');
    expect(await probes()).toEqual([]);
  });
});

describe('POST /entries under group commit', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startServer();
  });

  it('concurrent creates share transactions, each with its own status, actor, idempotency record and response', async () => {
    const ws = await buildWorkspace({ projects: 1 });
    const other = await buildWorkspace();
    const [alice, bob] = [await actor(api, { workspaceId: ws.id }), await actor(api, { workspaceId: ws.id })];
    const foreignParty = await buildParty(other.id);
    await closePeriod(api, alice.token, ws.id, '2025-01-01', '2025-01-31');
    const body = (n: number, extra: Record<string, unknown> = {}) => ({
      projectId: ws.projectIds[0],
      entryType: 'EXPENSE',
      baseCurrency: 'USD',
      entryDate: '2026-03-01',
      amountCents: 100 + n,
      description: `grouped ${n}`,
      ...extra,
    });
    type Req = { who: typeof alice; body: Record<string, unknown>; key?: string; expect: number };
    const reqs: Req[] = Array.from({ length: 20 }, (_, n) => ({ who: n % 2 ? bob : alice, body: body(n), expect: 200 }));
    reqs[3] = { who: alice, body: body(3, { fromPartyId: foreignParty.id }), expect: 400 };
    reqs[11] = { who: bob, body: body(11, { entryDate: '2025-01-15' }), expect: 409 };
    for (const n of [5, 6, 14]) reqs[n].key = `group-${ws.id}-${n}`;

    const before = { ...createCommits.stats };
    const held = await holdLanes(createCommits, 4);
    const sent = reqs.map((r) => api.post('/entries', r.body, { token: r.who.token, headers: r.key ? { 'Idempotency-Key': r.key } : {} }));
    await untilQueued(createCommits, reqs.length);
    held.release();
    const res = await Promise.all(sent);
    await held.done;

    expect(res.map((r) => r.status)).toEqual(reqs.map((r) => r.expect));
    expect(createCommits.stats.fallbacks).toBeGreaterThan(before.fallbacks); // the bad two sent their groups again one by one
    const created = res.filter((r) => r.status === 200).map((r) => r.body);
    created.forEach((e, i) => expect(e.description).toBe(reqs.filter((r) => r.expect === 200)[i].body.description));
    const rows = await db().query<{ id: string; created_by: string; actor_id: string; n: string }>(
      `SELECT e.id::text, e.created_by::text, ev.actor_id, (SELECT count(*) FROM entries x WHERE x.workspace_id = e.workspace_id AND x.description = e.description)::text AS n
         FROM entries e JOIN entry_events ev ON ev.entry_id = e.id AND ev.kind = 'ENTRY_CREATED'
        WHERE e.workspace_id = :ws ORDER BY e.amount_cents`,
      { replacements: { ws: ws.id }, type: QueryTypes.SELECT },
    );
    expect(rows).toHaveLength(18);
    const okReqs = reqs.filter((r) => r.expect === 200);
    rows.forEach((row, i) => {
      expect(row.n).toBe('1');
      expect(row.created_by).toBe(okReqs[i].who.id);
      expect(row.actor_id).toBe(okReqs[i].who.id);
    });
    // the keyed ones replay their own response and create nothing more
    for (const n of [5, 6, 14]) {
      const again = await api.post('/entries', reqs[n].body, { token: reqs[n].who.token, headers: { 'Idempotency-Key': reqs[n].key! } });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(res[n].body);
    }
    expect(
      Number(
        (
          await db().query<{ n: string }>('SELECT count(*) AS n FROM entries WHERE workspace_id = :ws', {
            replacements: { ws: ws.id },
            type: QueryTypes.SELECT,
          })
        )[0].n,
      ),
    ).toBe(18);
  });

  it('without bad requests the creates commit in groups (entries written by one transaction share its xmin)', async () => {
    const ws = await buildWorkspace({ projects: 1 });
    const { token } = await actor(api, { workspaceId: ws.id });
    const before = createCommits.stats.groups;
    const held = await holdLanes(createCommits, 4);
    const sent = Array.from({ length: 12 }, (_, n) =>
      api.post(
        '/entries',
        { projectId: ws.projectIds[0], entryType: 'INCOME', baseCurrency: 'USD', entryDate: '2026-03-02', amountCents: 1 + n },
        { token },
      ),
    );
    await untilQueued(createCommits, 12);
    held.release();
    expect((await Promise.all(sent)).map((r) => r.status)).toEqual(Array(12).fill(200));
    await held.done;
    expect(createCommits.stats.groups).toBeGreaterThan(before);
    const xmins = await db().query<{ xmin: string; n: string }>(
      'SELECT xmin::text, count(*)::text AS n FROM entries WHERE workspace_id = :ws GROUP BY xmin',
      { replacements: { ws: ws.id }, type: QueryTypes.SELECT },
    );
    expect(xmins.length).toBeLessThan(12);
    expect(xmins.reduce((s, x) => s + Number(x.n), 0)).toBe(12);
  });

  it('one client at a time: every create commits alone, as before', async () => {
    const ws = await buildWorkspace({ projects: 1 });
    const { token } = await actor(api, { workspaceId: ws.id });
    for (let n = 0; n < 4; n++) {
      const r = await api.post(
        '/entries',
        { projectId: ws.projectIds[0], entryType: 'INCOME', baseCurrency: 'USD', entryDate: '2026-03-02', amountCents: 1 + n },
        { token },
      );
      expect(r.status).toBe(200);
    }
    const xmins = await db().query('SELECT DISTINCT xmin::text FROM entries WHERE workspace_id = :ws', {
      replacements: { ws: ws.id },
      type: QueryTypes.SELECT,
    });
    expect(xmins).toHaveLength(4);
  });
});
