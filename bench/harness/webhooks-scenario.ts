/**
 * Outbound webhooks (CONTRACT §15), two rows:
 * - the outbox's cost on writes: POST /entries with one subscribed endpoint (its deliveries going
 *   out meanwhile to a receiver on loopback) against the same run with no endpoint (the baseline);
 * - delivery throughput: N events queued at once, the time until every delivery SUCCEEDED at a
 *   local receiver, against the same receiver fed directly by keep-alive POSTs (its ceiling).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { plainEntryBody } from './fixtures.js';
import { cannon } from './load.js';
import { combineRuns, metered } from './cpu.js';
import type { BenchContext } from './scenarios.js';
import { throughputRow, type ResultRow } from './table.js';

const CONNECTIONS = 10;

/** A receiver that answers 200 at once and counts what it got. */
export async function startReceiver(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function api(c: BenchContext, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${c.server.base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', authorization: `Bearer ${c.token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function pendingDeliveries(client: pg.Client, workspaceId: number): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'PENDING'`,
    [workspaceId],
  );
  return rows[0].n;
}

export async function drained(client: pg.Client, workspaceId: number, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while ((await pendingDeliveries(client, workspaceId)) > 0) {
    if (Date.now() > until) throw new Error('webhook deliveries did not drain');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function outboxOverheadScenario(c: BenchContext): Promise<ResultRow> {
  const rx = await startReceiver();
  const client = new pg.Client({ connectionString: c.url });
  await client.connect();
  const auth = { authorization: `Bearer ${c.token}` };
  const body = plainEntryBody(c.writes.projectId, 'Bench POST /entries (webhooks)', 'BENCH-HOOK');
  try {
    await cannon({
      url: `${c.server.base}/entries`,
      method: 'POST',
      headers: auth,
      body,
      seconds: c.settings.warmupSeconds,
      connections: CONNECTIONS,
    });
    // alternating halves (none, endpoint, none, endpoint) so that drift of a shared machine hits both sides
    const half = () =>
      cannon({
        url: `${c.server.base}/entries`,
        method: 'POST',
        headers: auth,
        body,
        seconds: c.settings.seconds / 2,
        connections: CONNECTIONS,
      });
    const endpointBody = { workspaceId: c.writes.workspaceId, url: rx.url, eventTypes: ['entry.created'] };
    const baseRuns = [];
    const ourRuns = [];
    const peak = c.server.watchRss();
    for (let round = 0; round < 2; round++) {
      baseRuns.push(await metered(c, half));
      const endpoint = await api(c, 'POST', '/webhook-endpoints', endpointBody);
      try {
        ourRuns.push(await metered(c, half));
        await drained(client, c.writes.workspaceId);
      } finally {
        await api(c, 'DELETE', `/webhook-endpoints/${endpoint.id}`);
      }
    }
    const base = combineRuns(baseRuns);
    const ours = combineRuns(ourRuns);
    return throughputRow('POST /entries, 1 webhook endpoint vs none', ours, base, peak(), 0.85, [
      `alternating halves; ${ours.requests} entries created with the endpoint, ${rx.count()} deliveries received`,
    ]);
  } finally {
    await client.end();
    await rx.close();
  }
}

export async function deliveryRateScenario(c: BenchContext): Promise<ResultRow> {
  const events = c.settings.seconds * 1000; // 3,000 (--quick) or 10,000
  const rx = await startReceiver();
  const client = new pg.Client({ connectionString: c.url });
  await client.connect();
  try {
    const endpoint = await api(c, 'POST', '/webhook-endpoints', {
      workspaceId: c.writes.workspaceId,
      url: rx.url,
      eventTypes: ['sync.synced'],
    });
    const ws = c.writes.workspaceId;
    const payload = JSON.stringify({ object: { id: 'bench', status: 'SYNCED', note: 'x'.repeat(400) } });
    // the outbox statement of publishMany, for `events` events at once (one commit, one notification)
    const started = performance.now();
    await client.query(
      `WITH ev AS (
         INSERT INTO webhook_events (id, workspace_id, type, data, created_at)
         SELECT gen_random_uuid(), $1, 'sync.synced', $2::jsonb, now() FROM generate_series(1, $3)
         RETURNING id, workspace_id, type
       )
       INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, next_attempt_at, created_at)
       SELECT ev.workspace_id, $4, ev.id, now(), now() FROM ev`,
      [ws, payload, events, endpoint.id],
    );
    await drained(client, ws);
    const seconds = (performance.now() - started) / 1000;
    const { rows } = await client.query<{ ok: number }>(
      `SELECT count(*)::int AS ok FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'SUCCEEDED'`,
      [endpoint.id],
    );
    await api(c, 'DELETE', `/webhook-endpoints/${endpoint.id}`);
    // the ceiling: the same receiver fed directly, keep-alive, 64 at a time
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const body = JSON.stringify({
      id: 'x',
      type: 'sync.synced',
      workspaceId: ws,
      createdAt: new Date().toISOString(),
      data: JSON.parse(payload),
    });
    const direct0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next++ < events) {
          await new Promise<void>((resolve, reject) => {
            const req = http.request(rx.url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json' } }, (res) => {
              res.resume();
              res.on('end', () => resolve());
            });
            req.on('error', reject);
            req.end(body);
          });
        }
      }),
    );
    const directSeconds = (performance.now() - direct0) / 1000;
    agent.destroy();
    const ours = rows[0].ok / seconds;
    const base = events / directSeconds;
    return {
      scenario: `webhook deliveries (${events.toLocaleString('en-US')} queued) vs direct POSTs`,
      unit: 'deliveries/s',
      ours,
      baseline: base,
      ratio: ours / base,
      p50: NaN,
      p95: NaN,
      p99: NaN,
      baselineP95: NaN,
      peakRssMB: c.server.rssMB(),
      target: 'ours >= 500/s',
      met: ours >= 500 && rows[0].ok === events,
      note: `${rows[0].ok} of ${events} SUCCEEDED in ${seconds.toFixed(2)} s (commit to last recorded outcome); receiver got ${rx.count() - events}`,
    };
  } finally {
    await client.end();
    await rx.close();
  }
}
