import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { seedDemo } from '../../server/seed/demo.js';
import { clock } from '../../server/lib/clock.js';
import { buildUser, login } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

let api: Api;
let token: string;
let workspaceId: number;

beforeAll(async () => {
  api = await startServer();
  const admin = await buildUser({ email: 'fx-demo-admin@example.test' });
  const today = new Date('2026-06-15T12:00:00Z');
  clock.set(() => today); // refunds are dated "today": the seed's today
  const seeded = await seedDemo(admin.email, today).finally(() => clock.reset());
  workspaceId = seeded.workspaceId!;
  token = await login(api, admin);
}, 120_000);

describe('demo seed: FX rates', () => {
  it('has a daily rate for every demo currency from a week before the first entry up to today', async () => {
    const rates = (await api.get('/fx-rates', { token, query: { workspaceId } })).body as any[];
    for (const currency of ['EUR', 'GBP', 'JPY']) {
      const days = rates.filter((r) => r.currency === currency).map((r) => r.rateDate);
      expect(days[0]).toBe('2025-05-25');
      expect(days.at(-1)).toBe('2026-06-15');
      expect(days.length).toBe(387); // 2025-05-25 … 2026-06-15, every day
    }
    const eur = rates.filter((r) => r.currency === 'EUR').map((r) => Number(r.rate));
    expect(Math.min(...eur)).toBeGreaterThan(0.8);
    expect(Math.max(...eur)).toBeLessThan(1.4);
  });

  it('values every demo entry when it is created: the normalised summary leaves nothing out', async () => {
    const summary = (await api.get('/reports/summary', { token, query: { workspaceId, normalize: 'true' } })).body;
    const plain = (await api.get('/reports/summary', { token, query: { workspaceId } })).body;
    expect(summary.currency).toBe('USD');
    expect(summary.entryCount).toBeGreaterThan(0);
    expect(summary.entryCount).toBe(plain.entryCount);
    expect(summary.unconverted).toEqual({ entryCount: 0, amountCentsByCurrency: {} });
    const [{ n }] = await db().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM entries WHERE workspace_id = $1 AND amount_base_cents IS NULL',
      {
        bind: [workspaceId],
        type: QueryTypes.SELECT,
      },
    );
    expect(n).toBe(0); // VOIDED and closed-period entries too: valued at create
  });
});
