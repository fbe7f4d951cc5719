import { expect } from 'vitest';
import { db } from '../../server/db/database.js';
import type { BankWorld } from '../support/factories/index.js';

export async function lines(w: BankWorld, query: Record<string, string | number | undefined> = {}): Promise<any[]> {
  const res = await w.api.get(`/bank-accounts/${w.account.id}/lines`, { token: w.token, query: { limit: 100, ...query } });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
}

export async function rowCount(table: string, where: string, params: Record<string, unknown>): Promise<number> {
  const [rows] = await db().query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, { replacements: params });
  return (rows as { n: number }[])[0].n;
}
