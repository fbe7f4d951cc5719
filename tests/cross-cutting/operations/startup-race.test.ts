import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db, pgClientConfig } from '../../../server/db/database.js';
import { withStartupLock } from '../../../server/db/startup-lock.js';
import { wireDomainReactions } from '../../../server/domains/reactions.js';
import { seedDemo } from '../../../server/seed/demo.js';
import { buildUser } from '../../support/factories/index.js';

/**
 * Instances of a first rollout start at once on one empty database, each with SEED_DEMO on: the
 * demo data is there once, whichever of them wrote it.
 */
beforeAll(() => wireDomainReactions()); // as main.ts does before it seeds

describe('demo seed by instances starting at once', () => {
  it('three seeds at once on an empty database: one seeds, the others find it; one demo workspace', { timeout: 120_000 }, async () => {
    const admin = await buildUser({ email: 'race-admin@example.test' });
    const results = await Promise.all([1, 2, 3].map(() => seedDemo(admin.email, new Date('2026-06-15T12:00:00Z'))));

    expect(results.filter((r) => r.seeded)).toHaveLength(1);
    expect(results.filter((r) => !r.seeded)).toEqual([{ seeded: false }, { seeded: false }]);
    const workspaces = await db().query<{ id: number; name: string }>('SELECT id, name FROM workspaces', { type: QueryTypes.SELECT });
    expect(workspaces).toEqual([{ id: results.find((r) => r.seeded)!.workspaceId, name: 'Demo Company' }]);
  });
});

describe('withStartupLock', () => {
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('callers holding one lock run one at a time; a caller that throws lets the next one in', async () => {
    const inside = { now: 0, most: 0 };
    const turn = (i: number) =>
      withStartupLock(pgClientConfig(), 'test: turns', async () => {
        inside.most = Math.max(inside.most, ++inside.now);
        await pause(30);
        inside.now--;
        if (i === 0) throw new Error('turn 0 fails');
        return i;
      });
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map(turn));

    expect(inside.most).toBe(1);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual(['Error: turn 0 fails', 1, 2, 3, 4]);
  });

  it('locks of other names do not wait for each other', async () => {
    let released!: () => void;
    const held = new Promise<void>((r) => (released = r));
    const first = withStartupLock(pgClientConfig(), 'test: first', () => held);
    const other = await Promise.race([
      withStartupLock(pgClientConfig(), 'test: second', async () => 'ran'),
      pause(5_000).then(() => 'waited'),
    ]);
    released();
    await first;
    expect(other).toBe('ran');
  });
});
