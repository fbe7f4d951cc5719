import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive, onCleanup, waitFor } from './cleanup.js';
import { freePort } from '../../../../server/db/embedded.js';

export const ADMIN = { email: 'crash-admin@example.com', password: 'crash-admin-password' };

export type ServerProcess = {
  baseUrl: string;
  pid: () => number | undefined;
  /** SIGKILL, then wait until the process is gone. */
  kill: () => Promise<void>;
  /** Starts server/main.ts again with the same environment and port. */
  restart: () => Promise<void>;
  /** stdout + stderr of the current process (for failure messages). */
  output: () => string;
};

/**
 * The real server (`node --import tsx server/main.ts`) as a child process against `databaseUrl`,
 * with fixed secrets (so tokens and API keys survive a restart) and no demo seed.
 */
export async function startServerProcess(
  databaseUrl: string,
  extraEnv: Record<string, string> = {},
  /** how long the start (migrations, and the demo seed when SEED_DEMO is on) may take */
  listenTimeoutMs = 90_000,
): Promise<ServerProcess> {
  const port = await freePort();
  // never the checkout's ./.data; a DATA_DIR of our own is removed with the process
  const ownDataDir = extraEnv.DATA_DIR ? undefined : mkdtempSync(path.join(os.tmpdir(), 'fes-crash-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString('hex'),
    CREDENTIALS_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    SEED_DEMO: 'false',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'fatal',
    INGEST_RATE_PER_MINUTE: '100000',
    DATA_DIR: ownDataDir,
    ...extraEnv,
  };
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    output = '';
    const c = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    c.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    c.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // a server that exits while starting (a failed migration or seed) fails the start at once, not at the timeout
    const exited = await waitFor(
      'server to listen',
      () => {
        if (c.exitCode !== null || c.signalCode !== null) return new Error(`server exited (${c.exitCode ?? c.signalCode}):\n${output}`);
        return /listening on http/.test(output) ? null : undefined;
      },
      listenTimeoutMs,
      50,
    );
    if (exited) throw exited;
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    c.kill('SIGKILL');
    await waitFor('server to die', () => (c.exitCode !== null || c.signalCode !== null || !isAlive(c.pid!) ? true : undefined), 10_000);
  };
  const removeDataDir = () => {
    if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
  };
  onCleanup(
    `server ${port}`,
    async () => {
      await kill();
      removeDataDir();
    },
    () => {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      removeDataDir();
    },
  );
  await start();
  return { baseUrl: `http://127.0.0.1:${port}`, pid: () => child?.pid, kill, restart: start, output: () => output };
}
