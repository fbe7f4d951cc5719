import type { Api, ApiResponse } from '../support/http.js';

export const KEY_FORMAT = /^fes_live_[A-Za-z0-9]{8}_[A-Za-z0-9]{40}$/;
export const INTEGRATION_KEYS = [
  'id',
  'workspaceId',
  'name',
  'projectIds',
  'keyPrefix',
  'entrySourceId',
  'isActive',
  'revokedAt',
  'createdBy',
  'createdAt',
  'updatedAt',
].sort();

export const ingest = (api: Api, apiKey: string | undefined, body: unknown): Promise<ApiResponse> =>
  api.post('/api/v1/ingest', body, { headers: apiKey === undefined ? {} : { 'X-API-Key': apiKey } });

/** A valid ingest item with defaults for the required fields. */
export const item = (projectId: number, externalId: string, overrides: Record<string, unknown> = {}) => ({
  externalId,
  projectId,
  entryType: 'EXPENSE',
  amountCents: 1234,
  baseCurrency: 'USD',
  entryDate: '2026-02-10',
  ...overrides,
});

export function expectIngestOk(res: ApiResponse): void {
  if (res.status !== 200) throw new Error(`ingest: expected 200, got ${res.status} ${res.text}`);
}
