import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../../../server/db/embedded.js';
import { isAlive, onCleanup, waitFor } from './cleanup-registry.js';
import { ensureDebianPackages } from '../../../support/debian-package.js';

const run = promisify(execFile);
const SHARD_COUNT = 8;
const BIN = '/usr/lib/postgresql/15/bin';
const CITUS_SO = '/usr/lib/postgresql/15/lib/citus.so';
const BUILD_SH = path.resolve(__dirname, '../../../../../shared/vendor/citus/build.sh');

/**
 * Debian's PostgreSQL 15 and the Citus extension built from shared/vendor/citus (build.sh, about
 * 2 minutes on 2 cores, idempotent) when citus.so is missing. Throws when they cannot be had.
 */
export async function ensureCitus(): Promise<void> {
  await ensureDebianPackages(['postgresql-15'], () => existsSync(path.join(BIN, 'postgres')));
  if (existsSync(CITUS_SO)) return;
  if (!existsSync(BUILD_SH)) throw new Error(`${CITUS_SO} is missing and so is ${BUILD_SH}`);
  await run('bash', [BUILD_SH, mkdtempSync(path.join(os.tmpdir(), 'citus-build-'))], { timeout: 1_200_000, maxBuffer: 16 * 1024 * 1024 });
}

export type CitusNode = { name: string; port: number; dataDir: string };

export type CitusCluster = {
  coordinator: CitusNode;
  workers: CitusNode[];
  /** The service's DATABASE_URL: the coordinator, as role fes (owner of database finance). */
  databaseUrl: string;
  /** A superuser URL of `node` (database finance). */
  superUrl: (node: CitusNode) => string;
  /** Starts one more worker and adds it to the cluster (citus_add_node); shards are not moved. */
  addWorker: () => Promise<CitusNode>;
  /** Another database `name` (owner fes) set up on every node as `finance` was; its DATABASE_URL for the service. */
  addDatabase: (name: string) => Promise<string>;
  output: () => string;
};

/**
 * A Citus cluster on loopback (CONTRACT §24): a coordinator and `workers` workers, each its own
 * Debian PostgreSQL 15 with `shared_preload_libraries = citus` and `wal_level = logical` (the
 * rebalancer moves shards by logical replication), trust authentication between the nodes on
 * 127.0.0.1 only, in one temp dir. The extension is created in database `finance` on every node
 * before the coordinator adds the workers; the service's role `fes` owns it. Run as user postgres
 * when we are root. Every postmaster is stopped and the dir removed when the test file ends.
 */
export async function startCitusCluster(workers = 2): Promise<CitusCluster> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'fes-citus-'));
  const asRoot = process.getuid?.() === 0;
  let ids: { uid: number; gid: number } | undefined;
  if (asRoot) {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    ids = { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
    chownSync(root, ids.uid, ids.gid);
  }
  chmodSync(root, 0o700);
  const nodes: CitusNode[] = [];
  const procs: ChildProcess[] = [];
  let log = '';
  const appPassword = randomBytes(12).toString('hex');
  const asPostgres = { env: { PATH: process.env.PATH, HOME: root, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' }, ...(ids ?? {}) };

  const stopAll = async () => {
    for (const p of procs) if (p.pid && isAlive(p.pid)) process.kill(p.pid, 'SIGINT'); // fast shutdown
    await waitFor('citus nodes to stop', () => (procs.every((p) => !p.pid || !isAlive(p.pid)) ? true : undefined), 20_000, 100).catch(
      () => undefined,
    );
    for (const p of procs) if (p.pid && isAlive(p.pid)) process.kill(p.pid, 'SIGKILL');
  };
  onCleanup(
    `citus cluster ${root}`,
    async () => {
      await stopAll();
      rmSync(root, { recursive: true, force: true });
    },
    () => {
      for (const p of procs) if (p.pid && isAlive(p.pid)) process.kill(p.pid, 'SIGKILL');
      rmSync(root, { recursive: true, force: true });
    },
  );

  const superUrl = (n: CitusNode) => `postgres://postgres@127.0.0.1:${n.port}/finance`;
  const sql = async (n: CitusNode, database: string, ...statements: string[]) => {
    const c = new pg.Client({ host: '127.0.0.1', port: n.port, user: 'postgres', database });
    await c.connect();
    try {
      for (const s of statements) await c.query(s);
    } finally {
      await c.end();
    }
  };

  const createDatabase = async (node: CitusNode, database: string) => {
    await sql(node, 'postgres', `CREATE DATABASE ${database} OWNER fes`);
    await sql(node, database, 'CREATE EXTENSION citus');
  };
  const joinWorkers = (coordinator: CitusNode, database: string, workerNodes: CitusNode[]) =>
    sql(
      coordinator,
      database,
      `SELECT citus_set_coordinator_host('127.0.0.1', ${coordinator.port})`,
      // few shard groups: a test's migration and rebalance stay short (production keeps Citus' 32)
      `ALTER DATABASE ${database} SET citus.shard_count = ${SHARD_COUNT}`,
      ...workerNodes.map((w) => `SELECT citus_add_node('127.0.0.1', ${w.port})`),
    );

  const startNode = async (name: string): Promise<CitusNode> => {
    const node: CitusNode = { name, port: await freePort(), dataDir: path.join(root, name) };
    await run(
      path.join(BIN, 'initdb'),
      ['-D', node.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'],
      asPostgres,
    );
    appendFileSync(
      path.join(node.dataDir, 'postgresql.conf'),
      [
        `port = ${node.port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${root}'`,
        "shared_preload_libraries = 'citus'",
        'wal_level = logical',
        'max_connections = 300',
        'max_wal_senders = 20',
        'max_replication_slots = 20',
        'shared_buffers = 64MB',
        'fsync = on',
        'synchronous_commit = on',
        // the rebalancer's own connections, and the service's pool through the coordinator
        'citus.max_shared_pool_size = 200',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(node.dataDir, 'pg_hba.conf'),
      'local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n',
    );
    const child = spawn(path.join(BIN, 'postgres'), ['-D', node.dataDir], { ...asPostgres, stdio: ['ignore', 'pipe', 'pipe'] });
    const append = (chunk: Buffer) => {
      log += chunk
        .toString()
        .split('\n')
        .filter(Boolean)
        .map((l) => `[${name}] ${l}\n`)
        .join('');
      if (log.length > 400_000) log = log.slice(-200_000);
    };
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    procs.push(child);
    await waitFor(
      `${name} to accept connections`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited:\n${log.slice(-3_000)}`);
        const c = new pg.Client({ host: '127.0.0.1', port: node.port, user: 'postgres', database: 'postgres' });
        try {
          await c.connect();
          await c.end();
          return true;
        } catch {
          return undefined;
        }
      },
      60_000,
      100,
    );
    await sql(node, 'postgres', `CREATE ROLE fes LOGIN PASSWORD '${appPassword}'`);
    await createDatabase(node, 'finance');
    nodes.push(node);
    return node;
  };

  const coordinator = await startNode('coordinator');
  const started: CitusNode[] = [];
  for (let i = 1; i <= workers; i++) started.push(await startNode(`worker${i}`));
  await joinWorkers(coordinator, 'finance', started);
  let count = workers;
  return {
    coordinator,
    workers: started,
    databaseUrl: `postgres://fes:${appPassword}@127.0.0.1:${coordinator.port}/finance`,
    superUrl,
    addWorker: async () => {
      const w = await startNode(`worker${++count}`);
      await sql(coordinator, 'finance', `SELECT citus_add_node('127.0.0.1', ${w.port})`);
      started.push(w);
      return w;
    },
    addDatabase: async (name: string) => {
      for (const n of [coordinator, ...started]) await createDatabase(n, name);
      await joinWorkers(coordinator, name, started);
      return `postgres://fes:${appPassword}@127.0.0.1:${coordinator.port}/${name}`;
    },
    output: () => log,
  };
}
