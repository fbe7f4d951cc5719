import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, inject } from 'vitest';

/**
 * `npm start`'s output (issue 31): stdout carries JSON log lines only, for log collectors; the
 * human banner with the generated admin password goes to stderr, never into the logs.
 */

const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

async function freshDatabase(): Promise<string> {
  const serverUrl = inject('pgServerUrl');
  const name = `stdout_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE fes_template`);
  await admin.end();
  return serverUrl.replace(/\/postgres$/, `/${name}`);
}

describe('process output', () => {
  it('writes only JSON lines to stdout and the first-start banner, password included, to stderr', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: await freshDatabase(),
      JWT_SECRET: randomBytes(32).toString('hex'),
      CREDENTIALS_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      ADMIN_EMAIL: 'first@example.com',
      SEED_DEMO: 'false',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'fes-stdout-')),
    };
    delete (env as Record<string, string | undefined>)['ADMIN_PASSWORD'];
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/Try: /.test(stderr)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`server exited (${code}):\n${stdout}\n${stderr}`)));
    });
    await expect.poll(() => stdout, { timeout: 10_000 }).toContain('"msg":"listening"');
    child.kill('SIGKILL');

    const password = /Admin login: {2}first@example\.com \/ (\S+)/.exec(stderr)?.[1];
    expect(password).toMatch(/^[\w-]{16}$/);
    expect(stderr).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/); // HOST=127.0.0.1: the address actually bound
    const lines = stdout.split('\n').filter((line) => line !== '');
    const records = lines.map((line) => JSON.parse(line) as { msg?: string; url?: string });
    expect(records.find((r) => r.msg === 'listening')?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stdout).not.toContain(password!);
  }, 120_000);
});
