/**
 * Ingest throughput: `npx tsx bench/ingest-throughput.ts [--batches 50] [--size 1000] [--parallel 4] [--lean] [--no-fsync]`.
 *
 * Starts a throwaway embedded PostgreSQL and the real app on loopback, creates a workspace,
 * two projects and an integration through the public API, then posts 1,000-entry batches to
 * POST /api/v1/ingest: all batches one after the other, then the same number again with
 * `parallel` requests in flight. Every item has a description, a reference, a party by name
 * and two tags by name (found or created), like a real feed; `--lean` sends only the required
 * fields and a description. Reports entries/s, batch latencies and the CPU time node and
 * PostgreSQL spent per 1,000 entries (the machine's capacity, whatever else is running on it).
 */
import 'reflect-metadata';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, chmodSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../server/config.js';
import { createLogger } from '../server/lib/logger.js';
import { resolveSecrets } from '../server/lib/secrets.js';
import { setRuntime } from '../server/runtime.js';
import { freePort, startEmbeddedPostgres } from '../server/db/embedded.js';
import { closeDatabase, connectDatabase } from '../server/db/database.js';
import { migrateUp } from '../server/db/migrate.js';
import { bootstrapAdmin } from '../server/domains/auth/bootstrap.js';
import { createApp } from '../server/app.js';
import { cpuSecondsBetween, cpuSecondsByPid } from './harness/server-process.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const BATCHES = arg('batches', 50);
const SIZE = arg('size', 1000);
const PARALLEL = arg('parallel', 4);
const DURABLE = !process.argv.includes('--no-fsync');
const LEAN = process.argv.includes('--lean');

let postmasterPid = 0;

/** CPU seconds used so far by the embedded PostgreSQL (postmaster and its backends), from /proc. */
const postgresCpu = () => cpuSecondsByPid(postmasterPid);

const nodeCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** A JSON call to the app that must answer 200; the bench only reads the few fields it needs. */
async function json(
  base: string,
  method: string,
  p: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ id: number; access_token: string; apiKey: string }> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed as { id: number; access_token: string; apiKey: string };
}

function batchBody(run: string, b: number, projectIds: number[]): string {
  const entries = Array.from({ length: SIZE }, (_, i) => {
    const n = b * SIZE + i;
    return {
      externalId: `${run}-${n}`,
      projectId: projectIds[n % projectIds.length],
      entryType: n % 3 === 0 ? 'INCOME' : 'EXPENSE',
      amountCents: 100 + ((n * 7919) % 500_000),
      baseCurrency: 'EUR',
      entryDate: `2026-0${1 + (n % 9)}-${String(1 + (n % 28)).padStart(2, '0')}`,
      description: `Order ${n} from the shop feed`,
      ...(LEAN
        ? {}
        : { reference: `INV-${n}`, toParty: { name: `Customer ${n % 200}` }, tagNames: [`channel-${n % 5}`, `region-${n % 12}`] }),
    };
  });
  return JSON.stringify({ entries });
}

type IngestResult = { created: number; duplicates: number; failed: number };

async function send(base: string, apiKey: string, body: string): Promise<{ ms: number; result: IngestResult }> {
  const started = performance.now();
  const res = await fetch(`${base}/api/v1/ingest`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': apiKey },
    body,
  });
  const result = (await res.json()) as IngestResult;
  if (res.status !== 200) throw new Error(`ingest: ${res.status} ${JSON.stringify(result).slice(0, 300)}`);
  return { ms: performance.now() - started, result };
}

async function post(base: string, apiKey: string, body: string): Promise<number> {
  const { ms, result } = await send(base, apiKey, body);
  if (result.created !== SIZE) throw new Error(`ingest created ${result.created} of ${SIZE}`);
  return ms;
}

async function scenario(name: string, base: string, apiKey: string, bodies: string[], parallel: number) {
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = { node: nodeCpuSeconds(), pg: postgresCpu() };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        latencies.push(await post(base, apiKey, body));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const nodeCpu = nodeCpuSeconds() - cpuBefore.node;
  const pgCpu = cpuSecondsBetween(cpuBefore.pg, postgresCpu());
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(0);
  const entries = bodies.length * SIZE;
  console.log(
    `${name.padEnd(28)} ${entries} entries in ${seconds.toFixed(2)} s = ${Math.round(entries / seconds)} entries/s ` +
      `(batch latency p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${pct(100)} ms)`,
  );
  const perThousand = (cpu: number) => ((cpu / entries) * 1e6).toFixed(0);
  console.log(
    `${''.padEnd(28)} CPU per 1000 entries: node ${perThousand(nodeCpu)} ms (incl. the load generator), postgres ${perThousand(pgCpu)} ms; ` +
      `load average ${os.loadavg()[0].toFixed(1)}`,
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fes-bench-'));
  chmodSync(dir, 0o755);
  const pgServer = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), persistent: false, durable: DURABLE });
  postmasterPid = Number(readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  try {
    const admin = new pg.Client({ connectionString: pgServer.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE bench');
    await admin.end();
    const config = loadConfig({
      DATABASE_URL: pgServer.url('bench'),
      JWT_SECRET: randomBytes(32).toString('hex'),
      CREDENTIALS_KEYS: `b1:${randomBytes(32).toString('base64')}`,
      LOG_LEVEL: 'warn',
      DATA_DIR: path.join(dir, 'files'),
      INGEST_RATE_PER_MINUTE: String(100_000),
    });
    setRuntime({ config, secrets: resolveSecrets(config), logger: createLogger(config.LOG_LEVEL) });
    await migrateUp(connectDatabase(pgServer.url('bench')));
    const password = randomBytes(12).toString('base64url');
    await bootstrapAdmin({ email: 'bench@example.com', password });

    const server = http.createServer(createApp());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const login = await json(base, 'POST', '/auth/login', { email: 'bench@example.com', password });
    const auth = { Authorization: `Bearer ${login.access_token}` };
    const ws = await json(base, 'POST', '/workspaces', { name: 'Bench', baseCurrency: 'EUR' }, auth);
    const projectIds: number[] = [];
    for (const name of ['Shop', 'Wholesale'])
      projectIds.push((await json(base, 'POST', '/projects', { workspaceId: ws.id, name }, auth)).id);
    const integration = await json(base, 'POST', '/integrations', { workspaceId: ws.id, name: 'Shop feed' }, auth);

    console.log(
      `ingest throughput: ${BATCHES} batches × ${SIZE} entries, ${os.cpus().length} CPUs, Node ${process.version}, ` +
        `PostgreSQL fsync ${DURABLE ? 'on' : 'off'}, ${LEAN ? 'lean items' : 'rich items (party and 2 tags by name)'}`,
    );
    await scenario(
      'warm-up (not counted)',
      base,
      integration.apiKey,
      [0, 1].map((b) => batchBody('warm', b, projectIds)),
      1,
    );
    const sequential = Array.from({ length: BATCHES }, (_, b) => batchBody('seq', b, projectIds));
    await scenario('sequential (1 in flight)', base, integration.apiKey, sequential, 1);
    const parallel = Array.from({ length: BATCHES }, (_, b) => batchBody('par', b, projectIds));
    await scenario(`parallel (${PARALLEL} in flight)`, base, integration.apiKey, parallel, PARALLEL);
    const resend = await send(base, integration.apiKey, sequential[0]);
    console.log(
      `re-sent batch (all duplicates)      created ${resend.result.created}, duplicates ${resend.result.duplicates} in ${resend.ms.toFixed(0)} ms`,
    );

    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeDatabase();
  } finally {
    await pgServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
