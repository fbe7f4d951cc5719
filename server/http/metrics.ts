import { Router, type RequestHandler } from 'express';
import { db } from '../db/database.js';
import { routeTemplateOf } from './route-templates.js';

/**
 * `GET /metrics` in the Prometheus text format (version 0.0.4), kept in process memory: each
 * instance reports its own numbers and Prometheus sums them across instances.
 *
 * Public by design, like /healthz: it holds no tenant data (route templates, counts, latencies,
 * pool sizes), and a deployment keeps it off the public internet at the load balancer. It is
 * not part of the API, so it is not in openapi.json.
 */

/** Latency buckets in seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

type Histogram = { counts: number[]; sum: number; count: number };

const requestCounts = new Map<string, number>();
const latencies = new Map<string, Histogram>();
const syncOutcomes = new Map<string, number>();

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labels = (pairs: Record<string, string>) =>
  `{${Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',')}}`;

function observe(method: string, route: string, status: number, seconds: number): void {
  const countKey = labels({ method, route, status: String(status) });
  requestCounts.set(countKey, (requestCounts.get(countKey) ?? 0) + 1);
  const key = JSON.stringify([method, route]);
  const h = latencies.get(key) ?? { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
  BUCKETS.forEach((le, i) => {
    if (seconds <= le) h.counts[i]! += 1;
  });
  h.sum += seconds;
  h.count += 1;
  latencies.set(key, h);
}

/**
 * Counts one outcome of a sync attempt (push, pull, retry, conflict resolution) by the status it
 * left the sync record in, e.g. `SYNCED`, `FAILED`, `CONFLICT`. For the sync domain to call.
 */
export function recordSyncOutcome(status: string): void {
  const label = /^[A-Z][A-Z0-9_]{0,31}$/.test(status) ? status : 'OTHER';
  syncOutcomes.set(label, (syncOutcomes.get(label) ?? 0) + 1);
}

type PoolLike = { size: number; available: number; using: number; waiting: number; maxSize: number };

/** Sequelize's pool, or its read and write pools when replication is configured. */
function pools(): [name: string, pool: PoolLike][] {
  let pool: unknown;
  try {
    pool = (db().connectionManager as unknown as { pool?: unknown }).pool;
  } catch {
    return [];
  }
  const isPool = (p: unknown): p is PoolLike => typeof p === 'object' && p !== null && typeof (p as PoolLike).size === 'number';
  if (isPool(pool)) return [['default', pool]];
  const split = pool as { read?: unknown; write?: unknown } | undefined;
  return (['read', 'write'] as const).flatMap((name) => (isPool(split?.[name]) ? [[name, split[name]] as [string, PoolLike]] : []));
}

function render(): string {
  const out: string[] = [];
  out.push('# HELP http_requests_total HTTP requests by method, route template and status.', '# TYPE http_requests_total counter');
  for (const [key, n] of requestCounts) out.push(`http_requests_total${key} ${n}`);

  out.push('# HELP http_request_duration_seconds HTTP request latency by method and route template.');
  out.push('# TYPE http_request_duration_seconds histogram');
  for (const [key, h] of latencies) {
    const [method, route] = JSON.parse(key) as [string, string];
    BUCKETS.forEach((le, i) => out.push(`http_request_duration_seconds_bucket${labels({ method, route, le: String(le) })} ${h.counts[i]}`));
    out.push(`http_request_duration_seconds_bucket${labels({ method, route, le: '+Inf' })} ${h.count}`);
    out.push(`http_request_duration_seconds_sum${labels({ method, route })} ${h.sum}`);
    out.push(`http_request_duration_seconds_count${labels({ method, route })} ${h.count}`);
  }

  out.push('# HELP db_pool_connections Database pool connections by state.', '# TYPE db_pool_connections gauge');
  const pooled = pools();
  for (const [pool, p] of pooled) {
    for (const state of ['size', 'available', 'using', 'waiting'] as const) {
      out.push(`db_pool_connections${labels({ pool, state })} ${p[state]}`);
    }
  }
  out.push('# HELP db_pool_max_connections Upper bound of the database pool.', '# TYPE db_pool_max_connections gauge');
  for (const [pool, p] of pooled) out.push(`db_pool_max_connections${labels({ pool })} ${p.maxSize}`);

  out.push('# HELP sync_outcomes_total Accounting sync attempts by resulting sync status.', '# TYPE sync_outcomes_total counter');
  for (const [status, n] of syncOutcomes) out.push(`sync_outcomes_total${labels({ status })} ${n}`);

  const memory = process.memoryUsage();
  out.push('# HELP process_uptime_seconds Seconds since the process started.', '# TYPE process_uptime_seconds gauge');
  out.push(`process_uptime_seconds ${process.uptime()}`);
  out.push('# HELP process_resident_memory_bytes Resident set size.', '# TYPE process_resident_memory_bytes gauge');
  out.push(`process_resident_memory_bytes ${memory.rss}`);
  out.push('# HELP nodejs_heap_used_bytes V8 heap in use.', '# TYPE nodejs_heap_used_bytes gauge');
  out.push(`nodejs_heap_used_bytes ${memory.heapUsed}`);
  return out.join('\n') + '\n';
}

/** Times every request (labelled by route template once it has been answered). */
const measure: RequestHandler = (req, res, next) => {
  const started = process.hrtime.bigint();
  const path = req.path;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    observe(req.method, routeTemplateOf(req, path), res.statusCode, seconds);
  };
  res.once('finish', finish);
  res.once('close', finish);
  next();
};

/** The request-metrics middleware and `GET /metrics`; mount it first. */
export function metricsRouter(): Router {
  const r = Router();
  r.use(measure);
  r.get('/metrics', (_req, res) => {
    res.type('text/plain; version=0.0.4; charset=utf-8').setHeader('Cache-Control', 'no-store');
    res.send(render());
  });
  return r;
}
