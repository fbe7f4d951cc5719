/**
 * Reading and checking entries (the objects themselves come from tests/support/factories): the
 * entry's keys, its events and relations, proof that a refused call changed nothing.
 */
import { expect } from 'vitest';
import type { EntryWorld } from './factories/index.js';
import type { Api, ApiResponse } from './http.js';

/** CONTRACT §2: a create may answer 200 or 201. */
export function expectOk(res: ApiResponse, what = 'request'): void {
  if (res.status !== 200 && res.status !== 201) throw new Error(`${what}: expected 200/201, got ${res.status} ${res.text}`);
}

export const ENTRY_KEYS = [
  'id',
  'workspaceId',
  'projectId',
  'entrySourceId',
  'entryType',
  'entryStatus',
  'statusReason',
  'baseCurrency',
  'amountCents',
  'fromPartyId',
  'toPartyId',
  'entryDate',
  'description',
  'reference',
  'isReconciled',
  'reconciledAt',
  'reconciledBy',
  'excludeFromSync',
  'isComplete',
  'categoryId',
  'createdBy',
  'createdAt',
  'updatedAt',
  'fxRate',
  'fxRateDate',
  'amountBaseCents',
  'recurringEntryId',
  'occurrenceDate',
].sort();

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Ids of a `GET /entries` page, in order. */
export async function listIds(api: Api, token: string, query: Record<string, string | number | boolean | undefined>): Promise<number[]> {
  const res = await api.get('/entries', { token, query: { limit: 100, ...query } });
  expect(res.status, res.text).toBe(200);
  return (res.body.items as { id: number }[]).map((e) => e.id);
}

export const ISO_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const SHA256 = /^[0-9a-f]{64}$/;

export async function getEntry(w: EntryWorld, id: number): Promise<any> {
  const res = await w.api.get(`/entries/${id}`, { token: w.token });
  expect(res.status).toBe(200);
  return res.body;
}

export async function setStatus(w: EntryWorld, id: number, status: string, reason?: string): Promise<ApiResponse> {
  return w.api.patch(`/entries/${id}/status`, reason === undefined ? { status } : { status, reason }, { token: w.token });
}

export async function events(w: EntryWorld, id: number): Promise<any[]> {
  const res = await w.api.get(`/entries/${id}/events`, { token: w.token });
  expect(res.status).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  return res.body;
}

export async function related(w: EntryWorld, id: number): Promise<any[]> {
  const res = await w.api.get(`/entries/${id}/related`, { token: w.token });
  expect(res.status).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  return res.body;
}

/** The entry and its event count, to prove that a refused call changed nothing. */
export async function snapshot(w: EntryWorld, id: number): Promise<{ entry: any; eventCount: number; related: any[] }> {
  return { entry: await getEntry(w, id), eventCount: (await events(w, id)).length, related: await related(w, id) };
}

export async function expectUnchanged(
  w: EntryWorld,
  id: number,
  before: { entry: any; eventCount: number; related: any[] },
): Promise<void> {
  expect(await snapshot(w, id)).toEqual(before);
}

export async function reopenPeriod(api: Api, token: string, periodId: string): Promise<any> {
  const res = await api.patch(`/accounting/periods/${periodId}/reopen`, undefined, { token });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('OPEN');
  return res.body;
}

/** YYYY-MM-DD plus `days`. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
