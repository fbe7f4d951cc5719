import { expect } from 'vitest';
import { registerSecret } from '../../cross-cutting/security/secret-scan.js';
import type { Api } from '../http.js';
import { closePeriod } from './periods.js';
import { actor } from './users.js';
import { buildWorkspace } from './workspaces.js';

export type HookWorld = { workspaceId: number; token: string; userId: string };

/** A workspace and a member holding every permission. */
export async function hookWorld(api: Api): Promise<HookWorld> {
  const ws = await buildWorkspace();
  const a = await actor(api, { workspaceId: ws.id });
  return { workspaceId: ws.id, token: a.token, userId: a.id };
}

export async function createEndpoint(api: Api, w: HookWorld, body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await api.post('/webhook-endpoints', { workspaceId: w.workspaceId, ...body }, { token: w.token });
  expect(res.status, res.text).toBe(200);
  registerSecret(res.body.secret);
  return res.body;
}

/** Closes a new period, January of a year no other call used (one `period.closed` event); returns the period. */
let periodYear = 1990;
export async function periodClosed(api: Api, w: HookWorld): Promise<any> {
  const year = periodYear++;
  return closePeriod(api, w.token, w.workspaceId, `${year}-01-01`, `${year}-01-31`);
}
