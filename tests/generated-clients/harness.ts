import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll } from 'vitest';
import { runtime } from '../../server/runtime.js';
import { buildUser } from '../support/factories/index.js';
import { startServer } from '../support/http.js';

/**
 * What every generated-client walk needs: the real service on a loopback port with its test
 * database, a user holding every permission, and a webhook receiver on 127.0.0.1 whose last
 * delivery (raw body and headers, exactly as sent) the walk reads back from `GET <inbox>` to verify
 * its signature with its own language's Standard Webhooks library.
 */

export const run = promisify(execFile);

/** Toolchains and generated code live outside the repo (never committed), kept between runs. */
export const CACHE_DIR = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'finance-entries', 'clients');
mkdirSync(CACHE_DIR, { recursive: true });

export const REPO = path.resolve(import.meta.dirname, '..', '..');
export const OPENAPI_31 = path.join(REPO, 'openapi.json');
export const OPENAPI_30 = path.join(REPO, 'openapi-3.0.json');

export type WalkWorld = { env: NodeJS.ProcessEnv; deliveries: () => number };

export async function walkWorld(): Promise<WalkWorld> {
  const api = await startServer();
  const user = await buildUser();
  // the receiver is on 127.0.0.1: allow it as a webhook target, as the webhook suites do
  runtime().config.WEBHOOK_ALLOW_PRIVATE_HOSTS = true;
  let last: { headers: Record<string, string>; body: string } | undefined;
  let count = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/hook') {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        last = { headers, body: Buffer.concat(chunks).toString('utf8') };
        count++;
        res.writeHead(204).end();
      } else if (req.method === 'GET' && req.url === '/inbox') {
        res.writeHead(last ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(last ?? {}));
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: {
      ...process.env,
      BASE_URL: api.baseUrl,
      EMAIL: user.email,
      PASSWORD: user.password,
      HOOK_URL: `${receiver}/hook`,
      HOOK_INBOX: `${receiver}/inbox`,
    },
    deliveries: () => count,
  };
}

/** The steps every walk prints, one `ok <step>` line each, then `walk passed`. */
export const WALK_STEPS = [
  'login',
  'create workspace and project',
  'create entry with Idempotency-Key',
  'replay',
  'page by cursor',
  'upload document',
  'download csv',
  'refund above amount is a typed 409',
  'webhook signature verified',
] as const;
