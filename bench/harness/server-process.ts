/**
 * The real server, production build (`npm run build` → `node dist/server/main.js`), in a child
 * process on loopback, so the bench can sample its resident memory from /proc/<pid>/status while it serves.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { freePort } from '../../server/db/embedded.js';

export type ServerProcess = {
  base: string;
  pid: number;
  /** VmRSS of the server now, in MB */
  rssMB: () => number;
  /** user + system CPU seconds the server process has used so far */
  cpuSeconds: () => number;
  /** samples RSS every 50 ms until the returned function is called; that returns the peak in MB */
  watchRss: () => () => number;
  stop: () => Promise<void>;
};

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** utime + stime of a process, in seconds (fields 14 and 15 of /proc/<pid>/stat). */
export function readCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** CPU seconds used so far by each process of a tree: the process `rootPid` and its children (PostgreSQL's backends). */
export function cpuSecondsByPid(rootPid: number): Map<number, number> {
  const used = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const pid = Number(entry);
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (pid === rootPid || parent === rootPid) used.set(pid, readCpuSeconds(pid));
    } catch {
      // the process ended while we looked
    }
  }
  return used;
}

/**
 * CPU seconds a process tree used between two snapshots: processes alive at both ends count their
 * difference, new ones all they used; one that ended in between is not seen (an undercount).
 */
export function cpuSecondsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

function readRssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function waitUntilHealthy(base: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${stderr()}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`server did not become healthy in 90 s: ${stderr()}`);
}

/** `nodeFlags` go before the script, e.g. `--cpu-prof --cpu-prof-dir=…` (written when the server exits). */
/** Compiles the server with tsc into dist/ (the production build). */
export function buildServer(): void {
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
}

export async function startServerProcess(env: Record<string, string>, nodeFlags: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags, 'dist/server/main.js'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', SEED_DEMO: 'false' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errText = '';
  child.stderr?.on('data', (chunk: Buffer) => (errText = (errText + chunk.toString('utf8')).slice(-4000)));
  const base = `http://127.0.0.1:${port}`;
  await waitUntilHealthy(base, child, () => errText);
  const pid = child.pid!;
  return {
    base,
    pid,
    rssMB: () => readRssMB(pid),
    cpuSeconds: () => readCpuSeconds(pid),
    watchRss: () => {
      let peak = readRssMB(pid);
      const timer = setInterval(() => (peak = Math.max(peak, readRssMB(pid))), 50);
      return () => {
        clearInterval(timer);
        return Math.max(peak, readRssMB(pid));
      };
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
