import { expect } from 'vitest';
import type { Permission } from '../../shared/permissions.js';
import { actor, buildParty, buildTag, buildWorkspace } from './factories.js';
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
].sort();

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A party through `POST /parties`; through the model when the actor may not create parties (a narrow-permission world). */
export async function createParty(api: Api, token: string, workspaceId: number, name = 'Party'): Promise<{ id: number }> {
  const res = await api.post('/parties', { workspaceId, name, partyType: 'ORGANIZATION' }, { token });
  if (res.status === 200 || res.status === 201) return { id: res.body.id };
  return buildParty(workspaceId, { name });
}

/** A tag through `POST /tags`; through the model when the actor may not create tags (a narrow-permission world). */
export async function createTag(api: Api, token: string, workspaceId: number, name: string): Promise<{ id: number }> {
  const res = await api.post('/tags', { workspaceId, name }, { token });
  if (res.status === 200 || res.status === 201) return { id: res.body.id };
  return buildTag(workspaceId, { name });
}

export type EntryWorld = {
  api: Api;
  ws: Awaited<ReturnType<typeof buildWorkspace>>;
  owner: Awaited<ReturnType<typeof actor>>;
  token: string;
  userId: string;
  workspaceId: number;
  /** the first of `projectIds` */
  projectId: number;
  projectIds: number[];
  /** four parties of the workspace */
  parties: [number, number, number, number];
};

/** A workspace with `projects` projects (1), four parties and a member holding every permission (or those given). */
export async function entryWorld(api: Api, opts: { projects?: number; permissions?: readonly Permission[] } = {}): Promise<EntryWorld> {
  const ws = await buildWorkspace({ projects: opts.projects ?? 1 });
  const owner = await actor(api, { workspaceId: ws.id, permissions: opts.permissions });
  const names = ['Acme Ltd', 'Globex', 'Initech', 'Umbrella'];
  const parties = [] as number[];
  for (const n of names) parties.push((await createParty(api, owner.token, ws.id, n)).id);
  return {
    api,
    ws,
    owner,
    token: owner.token,
    userId: owner.id,
    workspaceId: ws.id,
    projectId: ws.projectIds[0],
    projectIds: ws.projectIds,
    parties: parties as EntryWorld['parties'],
  };
}

/** A party id through `POST /parties` (see createParty). */
export const makeParty = async (api: Api, token: string, workspaceId: number, name: string): Promise<number> =>
  (await createParty(api, token, workspaceId, name)).id;

/** A tag id through `POST /tags`, with an optional colour; through the model when the actor may not create tags. */
export async function makeTag(api: Api, token: string, workspaceId: number, name: string, color?: string): Promise<number> {
  const res = await api.post('/tags', { workspaceId, name, ...(color ? { color } : {}) }, { token });
  if (res.status === 200 || res.status === 201) return res.body.id as number;
  return (await buildTag(workspaceId, { name, color })).id;
}

export type EntryBody = {
  projectId: number;
  entryType?: 'INCOME' | 'EXPENSE';
  amountCents?: number;
  baseCurrency?: string;
  entryDate?: string;
  [k: string]: unknown;
};

/** `POST /entries` with defaults for the required fields; fails the test on a non-2xx. */
export async function makeEntry(api: Api, token: string, body: EntryBody): Promise<any> {
  const res = await api.post(
    '/entries',
    { entryType: 'EXPENSE', amountCents: 1000, baseCurrency: 'USD', entryDate: '2026-01-15', ...body },
    { token },
  );
  if (res.status !== 200 && res.status !== 201) throw new Error(`create entry failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Ids of a `GET /entries` page, in order. */
export async function listIds(api: Api, token: string, query: Record<string, string | number | boolean | undefined>): Promise<number[]> {
  const res = await api.get('/entries', { token, query: { limit: 100, ...query } });
  expect(res.status, res.text).toBe(200);
  return (res.body.items as { id: number }[]).map((e) => e.id);
}

export const ISO_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const SHA256 = /^[0-9a-f]{64}$/;

export type EntryOverrides = Record<string, unknown>;

/** `POST /entries` with sensible defaults; returns the created entry. */
export async function createEntry(w: EntryWorld, overrides: EntryOverrides = {}): Promise<any> {
  const res = await w.api.post(
    '/entries',
    {
      projectId: w.projectId,
      entryType: 'EXPENSE',
      amountCents: 10_000,
      baseCurrency: 'USD',
      entryDate: '2026-01-15',
      fromPartyId: w.parties[0],
      toPartyId: w.parties[1],
      description: 'Office chairs',
      reference: 'INV-1',
      ...overrides,
    },
    { token: w.token },
  );
  expectOk(res, 'create entry');
  return res.body;
}

export async function getEntry(w: EntryWorld, id: number): Promise<any> {
  const res = await w.api.get(`/entries/${id}`, { token: w.token });
  expect(res.status).toBe(200);
  return res.body;
}

export async function setStatus(w: EntryWorld, id: number, status: string, reason?: string): Promise<ApiResponse> {
  return w.api.patch(`/entries/${id}/status`, reason === undefined ? { status } : { status, reason }, { token: w.token });
}

/**
 * An entry brought into `status` through allowed API transitions only:
 * PENDING (create), UNDER_REVIEW/COMPLETED/REJECTED/CANCELLED (status), VOIDED (void).
 */
export async function entryIn(w: EntryWorld, status: string, overrides: EntryOverrides = {}): Promise<any> {
  const entry = await createEntry(w, overrides);
  if (status === 'PENDING') return entry;
  let res: ApiResponse;
  if (status === 'VOIDED') res = await w.api.post(`/entries/${entry.id}/void`, { reason: 'setup void' }, { token: w.token });
  else res = await setStatus(w, entry.id, status, ['REJECTED', 'CANCELLED'].includes(status) ? `setup ${status}` : undefined);
  expectOk(res, `bring entry to ${status}`);
  expect(res.body.entryStatus).toBe(status);
  return res.body;
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

export async function createPeriod(
  api: Api,
  token: string,
  workspaceId: number,
  startDate: string,
  endDate: string,
  name?: string,
): Promise<any> {
  const res = await api.post(
    '/accounting/periods',
    { workspaceId, name: name ?? `${startDate}..${endDate}`, startDate, endDate },
    { token },
  );
  expectOk(res, 'create period');
  return res.body;
}

/** Creates a period and closes it; returns the closed period. */
export async function closePeriod(
  api: Api,
  token: string,
  workspaceId: number,
  startDate: string,
  endDate: string,
  name?: string,
): Promise<any> {
  const period = await createPeriod(api, token, workspaceId, startDate, endDate, name);
  const res = await api.patch(`/accounting/periods/${period.id}/close`, undefined, { token });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('CLOSED');
  return res.body;
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
