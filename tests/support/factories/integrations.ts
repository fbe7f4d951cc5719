import { expect } from 'vitest';
import type { Permission } from '../../../shared/permissions.js';
import type { Api } from '../http.js';
import { actor } from './users.js';
import { buildWorkspace } from './workspaces.js';

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

/** `POST /integrations` (the raw answer: some tests expect it to fail). */
export const createIntegration = (api: Api, token: string, body: Record<string, unknown>) => api.post('/integrations', body, { token });
