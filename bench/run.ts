/**
 * The benchmark: `npm run bench` (1,000,000 entries) or `npm run bench -- --quick` (100,000 entries,
 * short runs, under 3 minutes). `--rebuild` regenerates the dataset even when one of that size exists;
 * `--only <text>` runs just the scenarios whose name contains the text; `--entries <n>` sets the dataset's size;
 * `--cpu-prof` writes the server's CPU profile to .data/bench-prof/ (open it in Chrome DevTools).
 *
 * Builds (or reuses) the dataset in the bench database (bench/bench-db.ts, bench/generate-dataset.ts),
 * starts the real server as a child process on loopback against it, and runs every scenario and its
 * baseline in the same run: see harness/scenarios.ts. Prints one table and writes bench/results.json.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { loadConfig } from '../server/config.js';
import { createLogger } from '../server/lib/logger.js';
import { resolveSecrets } from '../server/lib/secrets.js';
import { setRuntime } from '../server/runtime.js';
import { openBenchDatabase } from './bench-db.js';
import { benchUser, createWriteWorkspace, ensureDataset } from './harness/fixtures.js';
import { buildServer, startServerProcess } from './harness/server-process.js';
import { runScenarios, type BenchSettings } from './harness/scenarios.js';
import { printTable } from './harness/table.js';
import { ensureBooks } from './harness/books-scenario.js';

const quick = process.argv.includes('--quick');
const settings: BenchSettings = quick
  ? { entries: 100_000, seconds: 3, listSeconds: 2, reportRuns: 3, ingestBatches: 10, warmupSeconds: 1 }
  : { entries: 1_000_000, seconds: 10, listSeconds: 5, reportRuns: 5, ingestBatches: 50, warmupSeconds: 3 };

const onlyAt = process.argv.indexOf('--only');
if (onlyAt > 0) settings.only = process.argv[onlyAt + 1];
// a smaller (or larger) dataset, for trying scenarios out: `--quick --entries 20000 --only POST`
const entriesAt = process.argv.indexOf('--entries');
if (entriesAt > 0) {
  settings.entries = Number(process.argv[entriesAt + 1]);
  if (!Number.isInteger(settings.entries) || settings.entries < 1) throw new Error('--entries must be a positive integer');
}

const log = (m: string) => console.log(m);
const loadavg = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg();
  log(
    `bench ${quick ? '--quick' : '(full)'}: ${settings.entries.toLocaleString('en-US')} entries; ${os.cpus().length} CPUs; Node ${process.version}; load average ${loadBefore}`,
  );
  const bench = await openBenchDatabase({ poolMax: 10, fresh: process.argv.includes('--rebuild') });
  const secrets = {
    DATABASE_URL: bench.url,
    JWT_SECRET: randomBytes(32).toString('hex'),
    CREDENTIALS_KEYS: `bench:${randomBytes(32).toString('base64')}`,
  };
  const config = loadConfig({ ...secrets, LOG_LEVEL: 'silent', SEED_DEMO: 'false' });
  setRuntime({ config, secrets: resolveSecrets(config), logger: createLogger('silent') });
  let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    const dataset = await ensureDataset(bench.sequelize, settings.entries, log);
    await noteLeftovers(bench.sequelize, dataset.workspaceId);
    if (!settings.only || settings.only.includes('books')) await ensureBooks(bench.sequelize, bench.url, dataset.workspaceId, log);
    const writes = await createWriteWorkspace(bench.sequelize);
    log('building the server (npm run build)');
    buildServer();
    server = await startServerProcess(
      {
        ...secrets,
        NODE_ENV: 'production',
        BENCH_BASELINE: '1',
        INGEST_RATE_PER_MINUTE: String(10_000_000),
        API_KEY_RATE_PER_MINUTE: String(10_000_000), // the MCP scenarios' agents act through keys (CONTRACT §20)
        WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', // the webhook scenarios deliver to a receiver on loopback
        DATA_DIR: path.resolve('.data/bench-files'),
      },
      process.argv.includes('--cpu-prof') ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve('.data/bench-prof')}`] : [],
    );
    log(`server pid ${server.pid} on ${server.base}, RSS ${server.rssMB().toFixed(0)} MB; dataset workspace ${dataset.workspaceId}`);
    const token = await benchUser(server.base, [dataset.workspaceId, writes.workspaceId]);
    const rows = await runScenarios({ server, token, dataset, writes, settings, url: bench.url, postgresPid: bench.postgresPid, log });
    const loadAfter = loadavg();
    const totalSeconds = (performance.now() - started) / 1000;
    log('');
    printTable(rows, log);
    log(`\nload average before ${loadBefore}, after ${loadAfter} (${os.cpus().length} CPUs); total ${totalSeconds.toFixed(0)} s`);
    const results = {
      mode: quick ? 'quick' : 'full',
      startedAt: new Date(Date.now() - totalSeconds * 1000).toISOString(),
      totalSeconds,
      entries: settings.entries,
      datasetBuildSeconds: dataset.builtSeconds ?? null,
      machine: { cpus: os.cpus().length, node: process.version, loadAverageBefore: loadBefore, loadAverageAfter: loadAfter },
      settings,
      rows,
    };
    writeFileSync(path.resolve('bench/results.json'), JSON.stringify(results, null, 2) + '\n');
    log('wrote bench/results.json');
  } finally {
    await server?.stop();
    await bench.close();
  }
}

/**
 * The write scenarios leave their entries behind (entry events are append-only, so they cannot be deleted):
 * every full run adds tens of thousands to the entries table, and its indexes grow with them. Say so, so
 * that runs far apart are not compared as if on the same table.
 */
async function noteLeftovers(sequelize: Sequelize, datasetWorkspaceId: number): Promise<void> {
  const [row] = await sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM entries WHERE workspace_id <> $1', {
    bind: [datasetWorkspaceId],
    type: QueryTypes.SELECT,
  });
  if (row.n > 0)
    log(`note: ${row.n.toLocaleString('en-US')} entries left by earlier runs' write scenarios share the table (--rebuild starts clean)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
