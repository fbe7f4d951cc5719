import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../../../server/db/embedded.js';
import { isAlive, onCleanup, waitFor } from './cleanup.js';
import { ensureDebianPackage } from '../../../support/debian-package.js';

const run = promisify(execFile);

/**
 * Debian's `haproxy` (DESIGN §9), installed with apt-get when it is not on PATH or in /usr/sbin.
 * Throws when it cannot be had: a multi-instance suite without its load balancer proves nothing.
 */
export const ensureHaproxy = (): Promise<string> => ensureDebianPackage(['haproxy'], 'haproxy');

/** One row of HAProxy's `show stat` (a backend server), the columns the suite reports. */
export type ServerStat = {
  name: string;
  status: string;
  sessions: number;
  http2xx: number;
  http5xx: number;
  connectErrors: number;
  retries: number;
  redispatches: number;
};

export type Haproxy = {
  url: string;
  version: string;
  pid: () => number | undefined;
  /** The backend servers as HAProxy sees them now (stats socket). */
  servers: () => Promise<ServerStat[]>;
  /** Resolves once HAProxy's health checks show `name` with `status` (e.g. UP, DOWN). */
  waitForStatus: (name: string, status: RegExp, timeoutMs?: number) => Promise<void>;
  config: string;
};

/**
 * HAProxy in front of `backends` (loopback ports), round robin, health check GET /readyz every
 * 500 ms (down after 2 failures), short timeouts, a connection refused by a dead server retried on
 * another one (never a request already sent: a POST must not run twice), and the serving server's
 * name in an `X-Served-By` response header. Config and stats socket live in a temp dir; the
 * process runs in the foreground as our child and is killed when the file ends, even on failure.
 */
export async function startHaproxy(binary: string, backends: { name: string; port: number }[]): Promise<Haproxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fes-haproxy-'));
  const port = await freePort();
  const socket = path.join(dir, 'stats.sock');
  const config = [
    'global',
    '  maxconn 1024',
    `  stats socket ${socket} mode 600 level admin`,
    '',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 20s',
    '  timeout server 20s',
    '  timeout http-request 5s',
    '  timeout http-keep-alive 2s',
    '  timeout check 1s',
    '  retries 3',
    '  retry-on conn-failure',
    '  option redispatch 1',
    '',
    'frontend api',
    `  bind 127.0.0.1:${port}`,
    '  default_backend instances',
    '',
    'backend instances',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  http-response set-header X-Served-By %[srv_name]',
    '  default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2',
    ...backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check`),
    '',
  ].join('\n');
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const version = (await run(binary, ['-v'])).stdout.split('\n')[0] ?? '';
  await run(binary, ['-c', '-q', '-f', file]);

  let output = '';
  const child: ChildProcess = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await waitFor(
        'haproxy to exit',
        () => (child.exitCode !== null || child.signalCode !== null || !isAlive(child.pid!) ? true : undefined),
        10_000,
      );
    }
    rmSync(dir, { recursive: true, force: true });
  };
  onCleanup(`haproxy ${port}`, kill, () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const servers = async (): Promise<ServerStat[]> => {
    const csv = await statsCommand(socket, 'show stat');
    const [header, ...lines] = csv.trim().split('\n');
    const cols = header!.replace(/^# /, '').split(',');
    const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
    const n = (v: string | undefined) => Number(v || 0);
    return rows
      .filter((r) => r.pxname === 'instances' && r.svname !== 'BACKEND')
      .map((r) => ({
        name: r.svname!,
        status: r.status!,
        sessions: n(r.stot),
        http2xx: n(r.hrsp_2xx),
        http5xx: n(r.hrsp_5xx),
        connectErrors: n(r.econ),
        retries: n(r.wretr),
        redispatches: n(r.wredis),
      }));
  };
  const waitForStatus = async (name: string, status: RegExp, timeoutMs = 15_000) => {
    await waitFor(
      `haproxy to see ${name} ${status}`,
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`haproxy exited:\n${output}`);
        const s = (await servers()).find((x) => x.name === name);
        return s && status.test(s.status) ? true : undefined;
      },
      timeoutMs,
      100,
    );
  };
  for (const b of backends) await waitForStatus(b.name, /^UP/, 30_000);
  return { url: `http://127.0.0.1:${port}`, version, pid: () => child.pid, servers, waitForStatus, config };
}

/** One command on HAProxy's stats socket; resolves its whole answer. */
function statsCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const s = connect(socket);
    s.setTimeout(5_000, () => s.destroy(new Error('stats socket timed out')));
    s.on('connect', () => s.write(`${command}\n`));
    s.on('data', (c: Buffer) => (text += c.toString()));
    s.on('end', () => resolve(text));
    s.on('error', reject);
  });
}
