import { Gauge, type Registry } from 'prom-client';
import { QueryTypes } from 'sequelize';
import { db } from './database.js';

/**
 * Backlogs read from the database at each scrape: the webhook outbox (deliveries waiting, how long
 * the oldest due one has waited) and pg-boss's job queues. They are the database's figures, so
 * every instance reports the same numbers. A scrape whose query fails reports no samples for it.
 */

async function rows<T extends object>(sql: string): Promise<T[] | undefined> {
  try {
    return await db().query<T>(sql, { type: QueryTypes.SELECT });
  } catch {
    return undefined; // e.g. pg-boss's schema not installed yet; /metrics still answers
  }
}

const OUTBOX_SQL = `
  SELECT count(*)::int AS pending,
         count(*) FILTER (WHERE next_attempt_at <= now())::int AS due,
         COALESCE(EXTRACT(EPOCH FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now())), 0)::float AS oldest_due_seconds
    FROM webhook_deliveries WHERE status = 'PENDING'`;

const QUEUES_SQL = `SELECT name, state, count(*)::int AS jobs FROM pgboss.job WHERE state IN ('created', 'retry', 'active') GROUP BY name, state`;

/** Registers the backlog gauges once per registry. */
export function registerBacklogMetrics(registry: Registry): void {
  if (registry.getSingleMetric('webhook_outbox_pending_deliveries')) return;
  let outbox: Promise<{ pending: number; due: number; oldest_due_seconds: number } | undefined> | null = null;
  // the three outbox gauges share one query per scrape
  const readOutbox = () => (outbox ??= rows<{ pending: number; due: number; oldest_due_seconds: number }>(OUTBOX_SQL).then((r) => r?.[0]));
  const outboxGauge = (name: string, help: string, pick: (o: { pending: number; due: number; oldest_due_seconds: number }) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const o = await readOutbox();
        queueMicrotask(() => (outbox = null));
        this.reset();
        if (o) this.set(pick(o));
      },
    });
  outboxGauge('webhook_outbox_pending_deliveries', 'Webhook deliveries PENDING (due now or waiting for a retry).', (o) => o.pending);
  outboxGauge('webhook_outbox_due_deliveries', 'Webhook deliveries due now and not yet attempted.', (o) => o.due);
  outboxGauge('webhook_outbox_oldest_due_seconds', 'How long the oldest due webhook delivery has waited.', (o) => o.oldest_due_seconds);
  new Gauge({
    name: 'job_queue_depth',
    help: 'pg-boss jobs by queue and state (created, retry, active).',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      const queues = await rows<{ name: string; state: string; jobs: number }>(QUEUES_SQL);
      this.reset();
      for (const q of queues ?? []) this.set({ queue: q.name, state: q.state }, q.jobs);
    },
  });
}
