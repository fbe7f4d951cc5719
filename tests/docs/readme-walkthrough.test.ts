import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../server/db/embedded.js';
import { extractBlocks, runBlock, substitute, walkthroughs, type Substitutions } from './readme-blocks.js';

/**
 * The newcomer's walk (issue 37): a fresh service started as the README's quick start does
 * (`npm start`: embedded PostgreSQL in an empty DATA_DIR, demo data, the admin password printed),
 * then every walkthrough block of README.md and then client-sdk/README.md in order, each of which must exit 0. The blocks run in
 * a scratch directory that links the checkout's files (so `npx tsx client-sdk/…` works and the
 * files they write stay out of the checkout). Documented substitutions (README "Contributing"):
 * `localhost:3000` → the service's real address, `<printed password>` → the printed password,
 * `@finance-entries/client-sdk` → the SDK's source.
 */

const DOCS = ['README.md', 'client-sdk/README.md'];
/** The terminal a reader has: without the variables vitest (Vite) sets for itself, e.g. BASE_URL=/. */
const READER_ENV: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !['BASE_URL', 'MODE', 'DEV', 'PROD', 'SSR', 'VITEST', 'VITEST_MODE'].includes(name)),
);
const ROOT = process.cwd();
const dirs: string[] = [];
let service: ChildProcess | undefined;
let subs: Substitutions;
let cwd: string;

function scratchDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  chmodSync(dir, 0o755); // the unprivileged postgres user (when run as root) must reach DATA_DIR
  dirs.push(dir);
  return dir;
}

/** Starts server/main.ts as `npm start` does; resolves the base URL and the printed admin password. */
async function startService(): Promise<{ base: string; password: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env))
    if (/^(DATABASE_URL|ADMIN_|SEED_DEMO|JWT_SECRET|CREDENTIALS_KEYS|METRICS_TOKEN|WEBHOOK_)/.test(name)) delete env[name];
  Object.assign(env, {
    DATA_DIR: scratchDir('fes-doc-data-'),
    PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  });
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  service = child;
  let output = '';
  return new Promise((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      const base = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      const password = /Admin login:\s+\S+ \/ (\S+)/.exec(output)?.[1];
      if (base && password) resolve({ base, password });
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before it was ready:\n${output}`)));
  });
}

beforeAll(async () => {
  const { base, password } = await startService();
  subs = {
    'http://localhost:3000': base,
    'localhost:3000': base.replace(/^http:\/\//, ''),
    '<printed password>': password,
    "'@finance-entries/client-sdk'": `'${path.join(ROOT, 'client-sdk/src/index.ts')}'`,
  };
  cwd = scratchDir('fes-doc-walk-');
  for (const name of readdirSync(ROOT)) if (name !== '.data') symlinkSync(path.join(ROOT, name), path.join(cwd, name));
}, 180_000);

afterAll(async () => {
  if (service && service.exitCode === null) {
    const exited = new Promise((resolve) => service!.once('exit', resolve));
    service.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    if (service.exitCode === null) service.kill('SIGKILL');
  }
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
}, 30_000);

async function call(method: string, url: string, token?: string, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${url}`).toBe(200);
  return res.json();
}

describe('the demo', () => {
  it('delivers the events of its last steps to its own loopback receiver (SUCCEEDED, nothing left retrying)', async () => {
    const base = subs['http://localhost:3000']!;
    const { access_token: token } = await call('POST', `${base}/auth/login`, undefined, {
      email: 'admin@example.com',
      password: subs['<printed password>'],
    });
    const endpoints: { id: string; url: string; isActive: boolean }[] = await call('GET', `${base}/webhook-endpoints?workspaceId=1`, token);
    const demo = endpoints.find((e) => e.url === `${base.replace('localhost', '127.0.0.1')}/demo/webhook-receiver` && e.isActive);
    expect(demo, JSON.stringify(endpoints)).toBeDefined();
    const list = async (status: string) => {
      const body = await call('GET', `${base}/webhook-endpoints/${demo!.id}/deliveries?status=${status}&limit=100`, token);
      return (Array.isArray(body) ? body : body.items) as unknown[];
    };
    await expect.poll(async () => (await list('PENDING')).length, { timeout: 30_000, interval: 1_000 }).toBe(0);
    expect((await list('SUCCEEDED')).length).toBeGreaterThanOrEqual(3);
    expect(await list('FAILED')).toEqual([]);
  }, 60_000);
});

for (const doc of DOCS) {
  const blocks = walkthroughs(extractBlocks(readFileSync(path.join(ROOT, doc), 'utf8'), doc));
  describe(`${doc}: every walkthrough block runs as written, in order`, () => {
    it('has walkthrough blocks', () => expect(blocks.length).toBeGreaterThan(doc === 'README.md' ? 5 : 2));
    for (const block of blocks) {
      it(`${doc}:${block.line} (${block.lang}) exits 0`, async () => {
        const result = await runBlock(block, substitute(block, subs), {
          cwd,
          stateFile: path.join(cwd, '.doc-state'),
          env: READER_ENV,
          timeoutMs: 90_000,
        });
        expect(
          result.exitCode,
          `${doc}:${block.line}\n--- stdout\n${result.stdout.slice(-3000)}\n--- stderr\n${result.stderr.slice(-3000)}`,
        ).toBe(0);
      }, 120_000);
    }
  });
}
