import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus registry and its named series. Any layer may count here (the sync
 * domain counts outcomes, the HTTP layer times requests); `GET /metrics` (server/http/metrics.ts)
 * renders it. Kept in process memory: each instance reports its own numbers.
 */
export const metricsRegistry = new Registry();

/** prom-client's process and Node.js series: CPU, memory, event-loop lag, GC, handles, … */
collectDefaultMetrics({ register: metricsRegistry });

/** Latency buckets in seconds (5 ms … 10 s). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [metricsRegistry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by method and route template.',
  labelNames: ['method', 'route'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

const syncOutcomes = new Counter({
  name: 'sync_outcomes_total',
  help: 'Accounting sync attempts by resulting sync status.',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
});

/**
 * Counts one outcome of a sync attempt (push, pull, retry, conflict resolution) by the status it
 * left the sync record in, e.g. `SYNCED`, `FAILED`, `CONFLICT`. For the sync domain to call.
 */
export function recordSyncOutcome(status: string): void {
  syncOutcomes.inc({ status: /^[A-Z][A-Z0-9_]{0,31}$/.test(status) ? status : 'OTHER' });
}

// Series the README documented before prom-client's defaults existed here; kept for existing dashboards.
new Gauge({
  name: 'process_uptime_seconds',
  help: 'Seconds since the process started.',
  registers: [metricsRegistry],
  collect() {
    this.set(process.uptime());
  },
});
new Gauge({
  name: 'nodejs_heap_used_bytes',
  help: 'V8 heap in use.',
  registers: [metricsRegistry],
  collect() {
    this.set(process.memoryUsage().heapUsed);
  },
});
