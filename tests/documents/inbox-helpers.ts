import { expect } from 'vitest';
import { drainExtractions } from '../../server/domains/documents/index.js';
import type { Api } from '../support/http.js';

/** Runs the background reading now (what the pg-boss worker does after commit). */
export const readNow = () => drainExtractions();

export async function extraction(api: Api, token: string, id: string): Promise<any> {
  const res = await api.get(`/documents/${id}/extraction`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}
