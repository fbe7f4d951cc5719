import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { actor, buildWorkspace } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/**
 * More than 10,000 entries of one type, inserted in one INSERT … SELECT generate_series each:
 * - INCOME: amounts 11..10015 (10,005 counted) plus five VOIDED ones of 1..5 that would be
 *   the smallest values if they were counted;
 * - EXPENSE: amounts 2, 4, …, 20000 (exactly 10,000: at the cap, not beyond it).
 */
let api: Api;
let token: string;
let workspaceId: number;

async function insertEntries(
  projectId: number,
  sourceId: number,
  type: string,
  status: string,
  amountSql: string,
  from: number,
  to: number,
) {
  await db().query(
    `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, entry_status, status_reason, base_currency, amount_cents, entry_date)
     SELECT $1, $2, $3, $4, $5, CASE WHEN $5 = 'VOIDED' THEN 'bulk' END, 'USD', ${amountSql}, date '2027-01-01' + (g % 365)
       FROM generate_series($6::int, $7::int) AS g`,
    { bind: [workspaceId, projectId, sourceId, type, status, from, to], type: QueryTypes.INSERT },
  );
}

beforeAll(async () => {
  api = await startServer();
  const ws = await buildWorkspace({ name: 'Bulk' });
  workspaceId = ws.id;
  token = (await actor(api, { workspaceId })).token;
  const { sourceId } = ws;
  await insertEntries(ws.projectIds[0], sourceId, 'INCOME', 'PENDING', 'g + 10', 1, 10_005);
  await insertEntries(ws.projectIds[0], sourceId, 'INCOME', 'VOIDED', 'g', 1, 5);
  await insertEntries(ws.projectIds[0], sourceId, 'EXPENSE', 'COMPLETED', '2 * g', 1, 10_000);
});

describe('GET /reports/distribution with more than 10,000 values', () => {
  it('returns the 10,000 smallest values ascending with valuesTruncated, statistics over all', async () => {
    const res = await api.get('/reports/distribution', { token, query: { workspaceId } });
    expect(res.status, res.text).toBe(200);
    const { INCOME, EXPENSE } = res.body;
    expect({ ...INCOME, values: undefined }).toEqual({
      count: 10_005,
      min: 11,
      max: 10_015,
      mean: 5013, // (11 + 10015) / 2
      median: 5013, // position 5002
      q1: 2512, // position 2501
      q3: 7514, // position 7503
      values: undefined,
      valuesTruncated: true,
    });
    expect(INCOME.values).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 11));

    expect(EXPENSE).not.toHaveProperty('valuesTruncated');
    expect({ ...EXPENSE, values: undefined }).toEqual({
      count: 10_000,
      min: 2,
      max: 20_000,
      mean: 10_001,
      median: 10_001, // between 10000 and 10002
      q1: 5002, // position 2499.75: 5000 + .75·2 = 5001.5
      q3: 15_001, // position 7499.25: 15000 + .25·2 = 15000.5
      values: undefined,
    });
    expect(EXPENSE.values).toEqual(Array.from({ length: 10_000 }, (_, i) => 2 * (i + 1)));
  });
});
