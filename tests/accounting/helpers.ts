import { expect } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import type { Api, ApiResponse } from '../support/http.js';

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
