import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../../../server/db/embedded.js';
import { isAlive, onCleanup, waitFor } from './cleanup.js';
import { ensureDebianPackages } from '../../../support/debian-package.js';

const run = promisify(execFile);

/**
 * Debian's packages of the failover suite (DESIGN §9): the HA manager, its store, and the
 * distribution's PostgreSQL (`postgresql`: 15 on Debian 12) for the nodes.
 */
const PACKAGES = ['patroni', 'etcd-server', 'postgresql'];
const PG_ROOT = '/usr/lib/postgresql';

/** The bin directory of the newest PostgreSQL installed the Debian way (/usr/lib/postgresql/<major>/bin), if any. */
function pgBin(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const majors = readdirSync(PG_ROOT)
    .filter((d) => /^\d+$/.test(d) && existsSync(path.join(PG_ROOT, d, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? path.join(PG_ROOT, majors[0], 'bin') : undefined;
}
const have = () => existsSync('/usr/bin/patroni') && existsSync('/usr/bin/etcd') && pgBin() !== undefined;

/**
 * Patroni, etcd and PostgreSQL from Debian, installed with apt-get when missing. Throws when they
 * cannot be had: a failover suite without its HA manager proves nothing.
 */
export const ensurePatroni = (): Promise<void> => ensureDebianPackages(PACKAGES, have, `patroni, etcd or ${PG_ROOT}/<major>/bin/postgres`);

export type PatroniNode = { name: string; pgPort: number; restPort: number; dataDir: string };

export type PatroniCluster = {
  nodes: PatroniNode[];
  /** The service's DATABASE_URL: every node, `target_session_attrs=read-write` (CONTRACT §22). */
  databaseUrl: string;
  /** A single-host URL of `node` (for checks on one server). */
  urlOf: (node: PatroniNode) => string;
  /** The node Patroni reports as leader (REST /cluster), or undefined while there is none. */
  leader: () => Promise<PatroniNode | undefined>;
  /** Resolves once one node leads and every other streams from it as `sync_standby`. */
  waitHealthy: (timeoutMs?: number) => Promise<PatroniNode>;
  /** kill -9 of `node`'s postmaster (its pid from postmaster.pid); resolves once it is gone. */
  killPostmaster: (node: PatroniNode) => Promise<number>;
  /** The last lines Patroni, PostgreSQL and etcd printed (for failure messages). */
  output: () => string;
};

type Proc = { child: ChildProcess; label: string };

/**
 * A Patroni cluster on loopback (issue 32): one etcd (the DCS), and `size` PostgreSQL nodes
 * (Debian's, 15 on Debian 12) each run by its own Patroni, in synchronous mode
 * (`synchronous_mode: true`: a commit returns once the synchronous standby has it on disk, and
 * only that standby may be promoted), failing over at once
 * when the primary's postmaster dies (`primary_start_timeout: 0`), checking every second
 * (`loop_wait: 1`), an old primary rejoining as a standby through pg_rewind. The service's role
 * `fes` owns database `finance`. Run as user postgres when we are root (PostgreSQL refuses root).
 * Every process is killed and every directory removed when the test file ends, even on failure.
 */
export async function startPatroniCluster(size = 2): Promise<PatroniCluster> {
  const binDir = pgBin();
  if (!binDir) throw new Error(`no PostgreSQL under ${PG_ROOT} (ensurePatroni installs it)`);
  const root = mkdtempSync(path.join(os.tmpdir(), 'fes-patroni-'));
  const asRoot = process.getuid?.() === 0;
  let ids: { uid: number; gid: number } | undefined;
  if (asRoot) {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    ids = { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
    chownSync(root, ids.uid, ids.gid);
  }
  chmodSync(root, 0o700);
  const procs: Proc[] = [];
  let log = '';
  const append = (label: string) => (chunk: Buffer) => {
    log += chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((l) => `[${label}] ${l}\n`)
      .join('');
    if (log.length > 400_000) log = log.slice(-200_000);
  };
  const startProc = (label: string, cmd: string, args: string[]) => {
    const child = spawn(cmd, args, {
      cwd: root,
      detached: true, // its own process group: Patroni's postgres processes go with it
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, HOME: root, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
      ...(ids ?? {}),
    });
    child.stdout!.on('data', append(label));
    child.stderr!.on('data', append(label));
    procs.push({ child, label });
    return child;
  };
  const killGroup = (p: Proc, signal: NodeJS.Signals) => {
    try {
      process.kill(-p.child.pid!, signal);
    } catch {
      /* gone */
    }
  };
  const stopAll = async () => {
    // Patroni stops its PostgreSQL on SIGTERM; whatever is left after a few seconds is killed
    for (const p of [...procs].reverse()) killGroup(p, 'SIGTERM');
    await waitFor('patroni cluster to stop', () => (procs.every((p) => !isAlive(p.child.pid!)) ? true : undefined), 15_000, 100).catch(
      () => undefined,
    );
    for (const p of procs) killGroup(p, 'SIGKILL');
    for (const n of nodes) killPostmasterOf(n.dataDir);
  };
  const nodes: PatroniNode[] = [];
  onCleanup(
    `patroni cluster ${root}`,
    async () => {
      await stopAll();
      rmSync(root, { recursive: true, force: true });
    },
    () => {
      for (const p of procs) killGroup(p, 'SIGKILL');
      for (const n of nodes) killPostmasterOf(n.dataDir);
      rmSync(root, { recursive: true, force: true });
    },
  );

  const [etcdClient, etcdPeer] = [await freePort(), await freePort()];
  startProc('etcd', '/usr/bin/etcd', [
    '--name=etcd1',
    `--data-dir=${path.join(root, 'etcd')}`,
    `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
    `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
    `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
    `--initial-cluster=etcd1=http://127.0.0.1:${etcdPeer}`,
    '--log-level=warn',
  ]);
  await waitFor(
    'etcd to be healthy',
    async () => ((await fetch(`http://127.0.0.1:${etcdClient}/health`)).ok ? true : undefined),
    30_000,
    100,
  );

  const superPassword = randomBytes(12).toString('hex');
  const appPassword = randomBytes(12).toString('hex');
  for (let i = 1; i <= size; i++) {
    nodes.push({ name: `pg${i}`, pgPort: await freePort(), restPort: await freePort(), dataDir: path.join(root, `pg${i}`) });
  }
  const configOf = (n: PatroniNode) =>
    [
      'scope: fes-failover',
      `name: ${n.name}`,
      'log: {level: WARNING}',
      `restapi: {listen: '127.0.0.1:${n.restPort}', connect_address: '127.0.0.1:${n.restPort}'}`,
      `etcd3: {hosts: '127.0.0.1:${etcdClient}'}`,
      'bootstrap:',
      '  dcs:',
      '    ttl: 20',
      '    loop_wait: 1',
      '    retry_timeout: 5',
      '    maximum_lag_on_failover: 1048576',
      '    primary_start_timeout: 0',
      '    synchronous_mode: true',
      '    postgresql:',
      '      use_pg_rewind: true',
      '      use_slots: true',
      "      parameters: {wal_log_hints: 'on', max_connections: 200, synchronous_commit: 'on', fsync: 'on'}",
      '  initdb: [{encoding: UTF8}, {locale: C.UTF-8}, {auth: scram-sha-256}]',
      '  pg_hba:',
      '    - local all all trust',
      '    - host replication replicator 127.0.0.1/32 scram-sha-256',
      '    - host all all 127.0.0.1/32 scram-sha-256',
      'postgresql:',
      `  listen: '127.0.0.1:${n.pgPort}'`,
      `  connect_address: '127.0.0.1:${n.pgPort}'`,
      `  data_dir: ${n.dataDir}`,
      `  bin_dir: ${binDir}`,
      `  pgpass: ${path.join(root, `pgpass-${n.name}`)}`,
      '  authentication:',
      `    superuser: {username: postgres, password: '${superPassword}'}`,
      `    replication: {username: replicator, password: '${superPassword}'}`,
      `    rewind: {username: postgres, password: '${superPassword}'}`,
      `  parameters: {unix_socket_directories: '${root}'}`,
      '',
    ].join('\n');
  const start = (n: PatroniNode) => {
    const file = path.join(root, `${n.name}.yml`);
    writeFileSync(file, configOf(n));
    if (ids) chownSync(file, ids.uid, ids.gid);
    startProc(n.name, '/usr/bin/patroni', [file]);
  };

  const clusterView = async (): Promise<{ name: string; role: string; state: string }[]> => {
    for (const n of nodes) {
      try {
        const res = await fetch(`http://127.0.0.1:${n.restPort}/cluster`, { signal: AbortSignal.timeout(1_000) });
        if (res.ok) return ((await res.json()) as { members: { name: string; role: string; state: string }[] }).members;
      } catch {
        /* that node's Patroni is not answering: ask the next */
      }
    }
    return [];
  };
  const leader = async () => {
    const members = await clusterView();
    const name = members.find((m) => m.role === 'leader' && m.state === 'running')?.name;
    return nodes.find((n) => n.name === name);
  };
  const waitHealthy = async (timeoutMs = 90_000) =>
    waitFor(
      'a leader and every other node a streaming sync_standby',
      async () => {
        const members = await clusterView();
        const lead = members.find((m) => m.role === 'leader' && m.state === 'running');
        const others = members.filter((m) => m !== lead);
        const ok =
          lead && others.length === nodes.length - 1 && others.every((m) => m.role === 'sync_standby' && /running|streaming/.test(m.state));
        return ok ? nodes.find((n) => n.name === lead.name) : undefined;
      },
      timeoutMs,
      200,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${log.slice(-6_000)}`);
    });

  // the first node bootstraps the cluster, the others clone it (pg_basebackup) and follow
  start(nodes[0]!);
  await waitFor(
    `${nodes[0]!.name} to lead`,
    async () => ((await fetch(`http://127.0.0.1:${nodes[0]!.restPort}/primary`)).status === 200 ? true : undefined),
    90_000,
    200,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${log.slice(-6_000)}`);
  });
  for (const n of nodes.slice(1)) start(n);
  const first = await waitHealthy();

  const admin = new pg.Client({ host: '127.0.0.1', port: first.pgPort, user: 'postgres', password: superPassword, database: 'postgres' });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE fes LOGIN PASSWORD '${appPassword}'`);
    await admin.query('CREATE DATABASE finance OWNER fes');
  } finally {
    await admin.end();
  }

  const hosts = nodes.map((n) => `127.0.0.1:${n.pgPort}`).join(',');
  return {
    nodes,
    databaseUrl: `postgres://fes:${appPassword}@${hosts}/finance?target_session_attrs=read-write`,
    urlOf: (n) => `postgres://fes:${appPassword}@127.0.0.1:${n.pgPort}/finance`,
    leader,
    waitHealthy,
    killPostmaster: async (n) => {
      const pid = postmasterPidOf(n.dataDir);
      if (!pid) throw new Error(`${n.name} has no postmaster.pid`);
      process.kill(pid, 'SIGKILL');
      await waitFor(`${n.name}'s postmaster to die`, () => (isAlive(pid) ? undefined : true), 10_000, 20);
      return pid;
    },
    output: () => log,
  };
}

function postmasterPidOf(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function killPostmasterOf(dataDir: string): void {
  const pid = postmasterPidOf(dataDir);
  if (pid && isAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}
