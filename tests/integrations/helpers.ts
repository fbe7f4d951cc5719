import { expect } from 'vitest';
import type { Permission } from '../../shared/permissions.js';
import { actor, buildWorkspace } from '../support/factories.js';
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

export type IntegrationWorld = {
  api: Api;
  token: string;
  userId: string;
  workspaceId: number;
  projectIds: number[];
  integration: Record<string, any>;
  apiKey: string;
};

/** A workspace with `projects` projects, a member with every permission, and one integration (scoped when asked). */
export async function integrationWorld(
  api: Api,
  opts: { projects?: number; scope?: (projectIds: number[]) => number[]; permissions?: readonly Permission[] } = {},
): Promise<IntegrationWorld> {
  const ws = await buildWorkspace({ projects: opts.projects ?? 2 });
  const user = await actor(api, { workspaceId: ws.id, permissions: opts.permissions });
  const res = await createIntegration(api, user.token, {
    workspaceId: ws.id,
    name: 'Shop feed',
    ...(opts.scope ? { projectIds: opts.scope(ws.projectIds) } : {}),
  });
  expect(res.status, res.text).toBe(200);
  const { apiKey, ...integration } = res.body;
  return { api, token: user.token, userId: user.id, workspaceId: ws.id, projectIds: ws.projectIds, integration, apiKey };
}

export const createIntegration = (api: Api, token: string, body: Record<string, unknown>) => api.post('/integrations', body, { token });

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
