import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { runtime } from '../../server/runtime.js';

/** Short retry delays and a loopback receiver for the webhook suites. */
export function webhookTestConfig(): void {
  const config = runtime().config;
  config.WEBHOOK_ALLOW_PRIVATE_HOSTS = true;
  config.WEBHOOK_RETRY_SCHEDULE = [1, 1, 1];
  config.WEBHOOK_TIMEOUT_MS = 2000;
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
