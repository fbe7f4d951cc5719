import { expect } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { runtime } from '../../server/runtime.js';
import type { Api } from '../support/http.js';
import { registerSecret } from '../support/http.js';
import { actor, buildWorkspace } from '../support/factories.js';
import { createPeriod } from '../support/entries.js';

/** Short retry delays and a loopback receiver for the webhook suites. */
export function webhookTestConfig(): void {
  const config = runtime().config;
  config.WEBHOOK_ALLOW_PRIVATE_HOSTS = true;
  config.WEBHOOK_RETRY_SCHEDULE = [1, 1, 1];
  config.WEBHOOK_TIMEOUT_MS = 2000;
}

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

/** Closes a new period (one `period.closed` event); returns the period. */
let periodYear = 1990;
export async function periodClosed(api: Api, w: HookWorld): Promise<any> {
  const year = periodYear++;
  const period = await createPeriod(api, w.token, w.workspaceId, `${year}-01-01`, `${year}-01-31`);
  const res = await api.patch(`/accounting/periods/${period.id}/close`, undefined, { token: w.token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

export const deliveryRows = (endpointId: string) =>
  db().query<{
    id: string;
    status: string;
    attempts: number;
    next_attempt_at: Date | null;
    last_attempt_at: Date | null;
    last_status_code: number | null;
    last_error: string | null;
  }>('SELECT * FROM webhook_deliveries WHERE endpoint_id = :endpointId ORDER BY created_at, id', {
    replacements: { endpointId },
    type: QueryTypes.SELECT,
  });

/** Polls until `check` holds (it throws until then). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
