import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordSyncOutcome } from '../../../server/lib/metrics.js';
import { runtime } from '../../../server/runtime.js';
import { actor, buildWorkspace, integrationWorld, createEndpoint } from '../../support/factories/index.js';
import { startServer, type Api } from '../../support/http.js';
import { ingest, item as ingestItem } from '../../integrations/helpers.js';
import { webhookTestConfig } from '../../outbound-webhooks/helpers.js';
import { startReceiver } from '../../outbound-webhooks/receiver.js';
import { ensureDebianPackage } from '../../support/debian-package.js';

/** promtool (Debian's prometheus package) for the exposition check, installed when missing. */
const ensurePromtool = () => ensureDebianPackage(['prometheus'], 'promtool');

/** GET /metrics: Prometheus text format (prom-client), labelled by route template, with DB pool, sync outcome and process series. */

type Sample = { name: string; labels: Record<string, string>; value: number };

function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|\+Inf|NaN)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

const valueOf = (samples: Sample[], name: string, labels: Record<string, string>) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;

let api: Api;
let token: string;
let workspaceId: number;
let projectIds: number[];

async function scrape(): Promise<Sample[]> {
  const res = await api.get('/metrics');
  expect(res.status).toBe(200);
  return parse(res.text);
}

beforeAll(async () => {
  api = await startServer();
  const ws = await buildWorkspace();
  workspaceId = ws.id;
  projectIds = ws.projectIds;
  token = (await actor(api, { workspaceId })).token;
});

describe('GET /metrics', () => {
  it('answers without a token in the Prometheus text format, and is not an API operation', async () => {
    const res = await api.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.text).toContain('# TYPE http_requests_total counter');
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(() => parse(res.text)).not.toThrow();
    const doc = (await api.get('/openapi.json')).body as { paths: Record<string, unknown> };
    expect(doc.paths['/metrics']).toBeUndefined();
  });

  it('counts requests by method, route template and status, never by raw URL', async () => {
    const before = await scrape();
    const missing = [900_001, 900_002, 900_003];
    for (const id of missing) expect((await api.get(`/entries/${id}`, { token })).status).toBe(404);
    expect((await api.get('/entries/export/csv', { token, query: { workspaceId } })).status).toBe(200);
    expect((await api.get('/trpc/auth.me', { token })).status).toBe(200);
    expect((await api.get('/trpc/no.such.procedure', { token })).status).toBe(404);
    expect((await api.get('/no/such/route/42')).status).toBe(404);

    const after = await scrape();
    const delta = (labels: Record<string, string>) =>
      valueOf(after, 'http_requests_total', labels) - valueOf(before, 'http_requests_total', labels);
    expect(delta({ method: 'GET', route: '/entries/{id}', status: '404' })).toBe(3);
    expect(delta({ method: 'GET', route: '/entries/export/csv', status: '200' })).toBe(1);
    expect(delta({ method: 'GET', route: '/trpc/auth.me', status: '200' })).toBe(1);
    expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).toBe(2);

    const routes = new Set(after.map((s) => s.labels.route).filter(Boolean));
    for (const id of missing) for (const route of routes) expect(route).not.toContain(String(id));
    expect([...routes].some((r) => r.includes('no.such') || r.includes('/no/such'))).toBe(false);
  });

  it('keeps a latency histogram per route: cumulative buckets, +Inf equal to the count, a positive sum', async () => {
    await api.get('/entries/900004', { token });
    const samples = await scrape();
    const labels = { method: 'GET', route: '/entries/{id}' };
    const buckets = samples
      .filter((s) => s.name === 'http_request_duration_seconds_bucket' && s.labels.route === labels.route && s.labels.method === 'GET')
      .map((s) => ({ le: s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), value: s.value }));
    expect(buckets.length).toBeGreaterThan(5);
    const sorted = [...buckets].sort((a, b) => a.le - b.le);
    expect(buckets).toEqual(sorted);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.value).toBeGreaterThanOrEqual(sorted[i - 1]!.value);
    const count = valueOf(samples, 'http_request_duration_seconds_count', labels);
    expect(count).toBeGreaterThanOrEqual(4);
    expect(sorted.at(-1)).toEqual({ le: Infinity, value: count });
    expect(valueOf(samples, 'http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
  });

  it('reports the database pool (size, available, using, waiting, max)', async () => {
    const samples = await scrape();
    const state = (s: string) => samples.find((x) => x.name === 'db_pool_connections' && x.labels.state === s);
    for (const s of ['size', 'available', 'using', 'waiting']) expect(state(s)?.value, s).toBeGreaterThanOrEqual(0);
    const max = samples.find((x) => x.name === 'db_pool_max_connections')!.value;
    expect(max).toBe(20); // the pool the tests connect with
    expect(state('size')!.value).toBeLessThanOrEqual(max);
    expect(state('size')!.value).toBeGreaterThanOrEqual(state('available')!.value + state('using')!.value);
  });

  it("reports prom-client's process and Node.js series (CPU, memory, event-loop lag, GC) and the README's process series", async () => {
    await new Promise((resolve) => setTimeout(resolve, 50)); // let the event loop turn between scrapes
    const res = await api.get('/metrics');
    for (const type of [
      '# TYPE process_cpu_user_seconds_total counter',
      '# TYPE process_cpu_system_seconds_total counter',
      '# TYPE process_resident_memory_bytes gauge',
      '# TYPE nodejs_eventloop_lag_seconds gauge',
      '# TYPE nodejs_heap_size_used_bytes gauge',
      '# TYPE nodejs_gc_duration_seconds histogram',
      '# TYPE process_uptime_seconds gauge',
      '# TYPE nodejs_heap_used_bytes gauge',
    ])
      expect(res.text).toContain(type);
    const samples = parse(res.text);
    const value = (name: string) => samples.find((s) => s.name === name)?.value;
    expect(value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(1024 * 1024);
    expect(value('nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(value('process_uptime_seconds')).toBeGreaterThan(0);
    expect(value('nodejs_heap_used_bytes')).toBeGreaterThan(0);
  });

  it('counts sync outcomes recorded by the sync domain, by status', async () => {
    const before = await scrape();
    recordSyncOutcome('SYNCED');
    recordSyncOutcome('SYNCED');
    recordSyncOutcome('FAILED');
    recordSyncOutcome('not a status"}\n');
    const after = await scrape();
    const delta = (status: string) =>
      valueOf(after, 'sync_outcomes_total', { status }) - valueOf(before, 'sync_outcomes_total', { status });
    expect(delta('SYNCED')).toBe(2);
    expect(delta('FAILED')).toBe(1);
    expect(delta('OTHER')).toBe(1);
  });
});

describe('sync outcomes from real pushes', () => {
  it('a committed MANUAL push counts as PUSHED', async () => {
    const ws = await buildWorkspace();
    const { token: t } = await actor(api, { workspaceId: ws.id });
    const connection = await api.post(
      '/accounting/connections',
      {
        workspaceId: ws.id,
        providerType: 'MANUAL',
        name: 'Books',
        credentials: {},
        requireReview: false,
        requireCompletenessForSync: false,
      },
      { token: t },
    );
    expect(connection.status).toBe(200);
    const entry = await api.post(
      '/entries',
      { projectId: ws.projectIds[0], entryType: 'EXPENSE', baseCurrency: 'USD', amountCents: 500, entryDate: '2026-04-01' },
      { token: t },
    );
    const before = await scrape();
    const push = await api.post('/accounting/sync/push', { entryId: entry.body.id, connectionId: connection.body.id }, { token: t });
    expect(push.status).toBe(200);
    expect(push.body.status).toBe('SYNCED');
    const after = await scrape();
    expect(valueOf(after, 'sync_outcomes_total', { status: 'PUSHED' }) - valueOf(before, 'sync_outcomes_total', { status: 'PUSHED' })).toBe(
      1,
    );
  });

  it('passes promtool check metrics (no gauge named *_total, help and types in order)', async () => {
    await ensurePromtool();
    const res = await api.get('/metrics');
    const check = spawnSync('promtool', ['check', 'metrics'], { input: res.text, encoding: 'utf8' });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
    expect(res.text).toMatch(/^nodejs_active_handles\{type=/m);
    expect(res.text).not.toMatch(/^# TYPE \S+_total gauge$/m);
  });

  it('counts ingest items by result', async () => {
    const w = await integrationWorld(api);
    const before = await scrape();
    const p = w.projectIds[0]!;
    const first = await ingest(api, w.apiKey, { entries: [ingestItem(p, 'm-1'), ingestItem(p, 'm-2'), { externalId: 'bad' }] });
    expect(first.status).toBe(200);
    expect((await ingest(api, w.apiKey, { entries: [ingestItem(p, 'm-1')] })).status).toBe(200);
    const after = await scrape();
    const delta = (status: string) => valueOf(after, 'ingest_items_total', { status }) - valueOf(before, 'ingest_items_total', { status });
    expect([delta('CREATED'), delta('DUPLICATE'), delta('ERROR')]).toEqual([2, 1, 1]);
  });

  it('counts statement imports by format and result, and the lines they stored', async () => {
    const account = await api.post(
      '/bank-accounts',
      { workspaceId, name: 'Metrics', currency: 'USD', projectId: projectIds[0], autoMatch: false },
      { token },
    );
    expect(account.status, account.text).toBe(200);
    const before = await scrape();
    const mapping = JSON.stringify({ dateColumn: 'd', amountColumn: 'a', dateFormat: 'YYYY-MM-DD', decimalSeparator: '.' });
    const upload = async (csv: string) => {
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 's.csv');
      form.append('format', 'CSV');
      form.append('csvMapping', mapping);
      const url = `${api.baseUrl}/bank-accounts/${account.body.id}/statements`;
      return fetch(url, { method: 'POST', body: form, headers: { Authorization: `Bearer ${token}` } });
    };
    expect((await upload('d,a\n2026-01-02,-5.00\n2026-01-03,7.25\n')).status).toBe(200);
    expect((await upload('d,a\nnot a date,x\n')).status).toBe(400);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('bank_statement_imports_total', { format: 'CSV', result: 'imported' })).toBe(1);
    expect(delta('bank_statement_imports_total', { format: 'CSV', result: 'refused' })).toBe(1);
    expect(delta('bank_statement_lines_imported_total', {})).toBe(2);
  });

  it('counts webhook attempts, deliveries given up and the delivery lag; reports the outbox backlog and job queues', async () => {
    webhookTestConfig();
    const receiver = await startReceiver();
    try {
      const w = { workspaceId, token, userId: '' };
      receiver.respond('/ok', () => ({ status: 200 }));
      receiver.respond('/gone', () => ({ status: 410 }));
      const ok = await createEndpoint(api, w, { url: receiver.url('/ok') });
      const gone = await createEndpoint(api, w, { url: receiver.url('/gone') });
      const before = await scrape();
      for (const id of [ok.id, gone.id]) expect((await api.post(`/webhook-endpoints/${id}/test`, undefined, { token })).status).toBe(200);
      const after = await scrape();
      const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
      expect(delta('webhook_delivery_attempts_total', { result: 'success' })).toBe(1);
      expect(delta('webhook_delivery_attempts_total', { result: 'failure' })).toBe(1);
      expect(delta('webhook_deliveries_failed_total')).toBe(1);
      expect(delta('webhook_delivery_lag_seconds_count')).toBe(1);
      for (const name of ['webhook_outbox_pending_deliveries', 'webhook_outbox_due_deliveries', 'webhook_outbox_oldest_due_seconds']) {
        expect(after.find((s) => s.name === name)?.value).toBeGreaterThanOrEqual(0);
      }
    } finally {
      await receiver.close();
    }
    const res = await api.get('/metrics');
    expect(res.text).toContain('# TYPE job_queue_depth gauge');
  });

  it('with METRICS_TOKEN set, answers only its bearer token (401 with the contract body otherwise)', async () => {
    const config = runtime().config;
    config.METRICS_TOKEN = 'metrics-scrape-token-0123456789';
    try {
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789', 'metrics-scrape-token-0123456789', `Bearer ${token}`]) {
        const res = await api.get('/metrics', { headers: authorization ? { authorization } : {} });
        expect(res.status, String(authorization)).toBe(401);
        expect(res.body).toEqual({ message: 'The metrics need Authorization: Bearer <METRICS_TOKEN>.', code: 'UNAUTHORIZED' });
        expect(res.text).not.toContain('http_requests_total');
      }
      const ok = await api.get('/metrics', { headers: { authorization: 'Bearer metrics-scrape-token-0123456789' } });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('# TYPE http_requests_total counter');
    } finally {
      delete config.METRICS_TOKEN;
    }
  });
});
