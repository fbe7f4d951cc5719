import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { seedDemo } from '../../server/seed/demo.js';
import { buildUser, login } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { KEY_FORMAT } from './api-keys-helpers.js';

/** Issue 29: the demo data has one app key, whose secret only the seeding instance knows (printed once by main.ts). */
let api: Api;
let seeded: Awaited<ReturnType<typeof seedDemo>>;
let token: string;

beforeAll(async () => {
  api = await startServer();
  const admin = await buildUser({ email: 'demo-keys@example.test' });
  seeded = await seedDemo(admin.email, new Date('2026-06-15T12:00:00Z'));
  token = await login(api, admin);
}, 120_000);

describe('demo seed: an API key', () => {
  it('is the one key of the demo workspace, works as a bearer, and no second seed shows a secret', async () => {
    expect(seeded.seeded).toBe(true);
    expect(seeded.apiKey).toMatch(KEY_FORMAT);
    const keys = (await api.get('/api-keys', { token, query: { workspaceId: seeded.workspaceId } })).body;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ name: 'Demo app', prefix: seeded.apiKey!.slice(0, 16), projectIds: [], revokedAt: null });
    const res = await api.get('/entries', { token: seeded.apiKey, query: { workspaceId: seeded.workspaceId, limit: 5 } });
    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThan(100);
    expectErrorBody(await api.get('/users', { token: seeded.apiKey }), 403, 'FORBIDDEN');
    const [{ n }] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys', { type: QueryTypes.SELECT });
    expect(n).toBe(1);
    expect(await seedDemo('demo-keys@example.test')).toEqual({ seeded: false });
  });
});
