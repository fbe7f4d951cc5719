import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus registry and its named series. Any layer may count here (the sync
 * domain counts outcomes, the HTTP layer times requests); `GET /metrics` (server/http/metrics.ts)
 * renders it. Kept in process memory: each instance reports its own numbers.
 */
export const metricsRegistry = new Registry();

/** prom-client's process and Node.js series: CPU, memory, event-loop lag, GC, handles, … */
collectDefaultMetrics({ register: metricsRegistry });

// prom-client adds three gauges named `*_total`, a suffix reserved for counters (promtool refuses
// them). They are sums of its per-type gauges `nodejs_active_{handles,requests,resources}{type}`,
// which stay: `sum(nodejs_active_handles)` is the same number.
for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
  metricsRegistry.removeSingleMetric(name);
}

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

const webhookAttempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Outbound webhook delivery attempts by result (success: a 2xx in time; failure: anything else).',
  labelNames: ['result'] as const,
  registers: [metricsRegistry],
});

const webhookFailures = new Counter({
  name: 'webhook_deliveries_failed_total',
  help: 'Outbound webhook deliveries given up (FAILED: retries spent, 410, a refused host).',
  registers: [metricsRegistry],
});

const webhookLag = new Histogram({
  name: 'webhook_delivery_lag_seconds',
  help: 'Seconds from an event being written to its successful delivery.',
  buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000],
  registers: [metricsRegistry],
});

/** Counts one webhook attempt; `lagSeconds` for a success (event written → delivered). */
export function recordWebhookAttempt(outcome: { succeeded: boolean; gaveUp: boolean; lagSeconds?: number }): void {
  webhookAttempts.inc({ result: outcome.succeeded ? 'success' : 'failure' });
  if (outcome.gaveUp) webhookFailures.inc();
  if (outcome.succeeded && outcome.lagSeconds !== undefined) webhookLag.observe(Math.max(0, outcome.lagSeconds));
}

const ingestItems = new Counter({
  name: 'ingest_items_total',
  help: 'Items received by POST /api/v1/ingest, by result (CREATED, DUPLICATE, ERROR).',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
});

export function recordIngestItems(counts: { created: number; duplicates: number; failed: number }): void {
  ingestItems.inc({ status: 'CREATED' }, counts.created);
  ingestItems.inc({ status: 'DUPLICATE' }, counts.duplicates);
  ingestItems.inc({ status: 'ERROR' }, counts.failed);
}

const statementImports = new Counter({
  name: 'bank_statement_imports_total',
  help: 'Bank statement imports by format and result (imported, or refused with a 4xx).',
  labelNames: ['format', 'result'] as const,
  registers: [metricsRegistry],
});

const statementLines = new Counter({
  name: 'bank_statement_lines_imported_total',
  help: 'Bank statement lines stored by imports (duplicates skipped).',
  registers: [metricsRegistry],
});

export function recordStatementImport(format: string, outcome: { importedLines: number } | 'refused'): void {
  const label = /^(?:CSV|OFX|CAMT053)$/.test(format) ? format : 'UNKNOWN';
  statementImports.inc({ format: label, result: outcome === 'refused' ? 'refused' : 'imported' });
  if (outcome !== 'refused') statementLines.inc(outcome.importedLines);
}

const commitGroups = new Counter({
  name: 'commit_group_transactions_total',
  help: 'Shared transactions of a commit group (server/db/commit-group.ts) by outcome: committed, or rolled back with every request written alone again (fallback).',
  labelNames: ['group', 'outcome'] as const,
  registers: [metricsRegistry],
});

const commitGroupItems = new Counter({
  name: 'commit_group_items_total',
  help: 'Pieces of work (e.g. entry creates) that committed inside a shared transaction of a commit group.',
  labelNames: ['group'] as const,
  registers: [metricsRegistry],
});

/** Counts one shared transaction of the commit group `group` and, when it committed, the pieces it carried. */
export function recordCommitGroup(group: string, outcome: 'committed' | 'fallback', items: number): void {
  commitGroups.inc({ group, outcome });
  if (outcome === 'committed') commitGroupItems.inc({ group }, items);
}
