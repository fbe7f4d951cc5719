import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { wireDomainReactions } from '../../../server/domains/reactions.js';
import { seedDemo } from '../../../server/seed/demo.js';
import { buildUser } from '../../support/factories.js';

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
