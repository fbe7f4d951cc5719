import { expect } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { WorkspaceMember } from '../../server/db/models/index.js';
import { actor } from '../support/factories.js';
import { entryWorld, expectOk, type EntryWorld } from '../support/entries.js';
import type { Api, ApiResponse } from '../support/http.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

/** The accounting suites build on the one entries world of tests/support/entries.ts, with two projects unless told. */
export type AccountingWorld = EntryWorld;
export const accountingWorld = (api: Api, opts: Parameters<typeof entryWorld>[1] = {}) => entryWorld(api, { projects: 2, ...opts });

/** A user holding every permission, member of each of the given workspaces, with a token. */
export async function memberOf(api: Api, workspaceIds: number[]): Promise<{ id: string; token: string }> {
  const user = await actor(api);
  for (const workspaceId of workspaceIds) await WorkspaceMember.create({ workspaceId, userId: user.id });
  await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
  return user;
}

/** `POST /accounting/connections` with a MANUAL provider by default; returns the connection. */
export async function createConnection(w: AccountingWorld, body: Record<string, unknown> = {}, api: Api = w.api): Promise<any> {
  const res = await api.post(
    '/accounting/connections',
    { workspaceId: w.workspaceId, providerType: 'MANUAL', name: 'Books', credentials: { apiKey: 'not-a-real-key' }, ...body },
    { token: w.token },
  );
  expectOk(res, 'create connection');
  return res.body;
}

export async function createCategory(w: AccountingWorld, body: Record<string, unknown> = {}): Promise<any> {
  const res = await w.api.post(
    '/accounting/categories',
    {
      workspaceId: w.workspaceId,
      code: `C${Math.random().toString(36).slice(2, 8)}`,
      name: 'Office supplies',
      accountType: 'EXPENSE',
      ...body,
    },
    { token: w.token },
  );
  expectOk(res, 'create category');
  return res.body;
}

/** The reviews of an entry, oldest first, straight from the database. */
export async function reviewsOf(entryId: number): Promise<any[]> {
  return db().query('SELECT * FROM accounting_reviews WHERE entry_id = :entryId ORDER BY created_at, id', {
    replacements: { entryId },
    type: QueryTypes.SELECT,
  });
}

export async function syncsOf(entryId: number): Promise<any[]> {
  return db().query('SELECT * FROM accounting_syncs WHERE entry_id = :entryId ORDER BY created_at, id', {
    replacements: { entryId },
    type: QueryTypes.SELECT,
  });
}

/** A recording client: the same calls, every response kept for later inspection. */
export function recordingApi(api: Api): { api: Api; responses: { method: string; path: string; res: ApiResponse }[] } {
  const responses: { method: string; path: string; res: ApiResponse }[] = [];
  const request: Api['request'] = async (method, path, opts) => {
    const res = await api.request(method, path, opts);
    responses.push({ method, path, res });
    return res as any;
  };
  return {
    responses,
    api: {
      baseUrl: api.baseUrl,
      request,
      get: (p, o) => request('GET', p, o),
      post: (p, b, o) => request('POST', p, { ...o, body: b }),
      patch: (p, b, o) => request('PATCH', p, { ...o, body: b }),
      put: (p, b, o) => request('PUT', p, { ...o, body: b }),
      del: (p, o) => request('DELETE', p, o),
    },
  };
}

export const CONNECTION_KEYS = [
  'config',
  'createdAt',
  'hasWebhookSecret',
  'id',
  'isActive',
  'lastPulledAt',
  'name',
  'projectIds',
  'providerType',
  'requireCompletenessForSync',
  'requireReview',
  'syncMode',
  'syncScheduleCron',
  'updatedAt',
  'workspaceId',
];

export const REVIEW_KEYS = [
  'categoryId',
  'connectionId',
  'createdAt',
  'decidedAt',
  'entry',
  'entryId',
  'id',
  'notes',
  'reviewerId',
  'status',
  'updatedAt',
];

export function expectStatus(res: ApiResponse, status: number): void {
  expect(res.status, res.text).toBe(status);
}
