import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Api, ApiResponse } from '../../../support/http.js';
import { onCleanup } from './cleanup.js';
import { plainClient } from './crash-world.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

/** Requests sent per target (`i1`, `lb→i2`, …): the figures the suite prints. */
export class Tally {
  private counts = new Map<string, number>();
  add(label: string): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
  }
  total(): number {
    return [...this.counts.values()].reduce((s, n) => s + n, 0);
  }
  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
  }
}

/**
 * The same calls as plainClient, each counted under `label`; through the load balancer the
 * count names the instance that answered (its `X-Served-By` header), or `lb→none` when HAProxy
 * answered itself (502, 503) and `label error` when the connection failed.
 */
export function countedClient(label: string, baseUrl: string, tally: Tally): Api {
  const inner = plainClient(baseUrl);
  const request = async (method: string, p: string, opts?: Parameters<Api['request']>[2]): Promise<ApiResponse> => {
    let res: ApiResponse;
    try {
      res = await inner.request(method, p, opts);
    } catch (err) {
      tally.add(`${label} error`);
      throw err;
    }
    tally.add(label === 'lb' ? `lb→${res.headers.get('x-served-by') ?? 'none'}` : label);
    return res;
  };
  return {
    baseUrl,
    request: request as Api['request'],
    get: ((p, o) => request('GET', p, o)) as Api['get'],
    post: ((p, b, o) => request('POST', p, { ...o, body: b })) as Api['post'],
    patch: ((p, b, o) => request('PATCH', p, { ...o, body: b })) as Api['patch'],
    put: ((p, b, o) => request('PUT', p, { ...o, body: b })) as Api['put'],
    del: ((p, o) => request('DELETE', p, o)) as Api['del'],
  };
}

export type Instance = { name: string; port: number; process: ServerProcess; api: Api };

/**
 * `count` real server processes (`node --import tsx server/main.ts`, see server-process.ts), each
 * on its own loopback port, all on one DATABASE_URL with the same JWT_SECRET, CREDENTIALS_KEYS and
 * DATA_DIR (as a deployment behind a load balancer would run them), SEED_DEMO=false. They start at
 * the same time, so migrations, pg-boss and the admin bootstrap race as in a real rollout.
 */
export async function startInstances(
  databaseUrl: string,
  count: number,
  tally: Tally,
  extraEnv: Record<string, string> = {},
): Promise<Instance[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'fes-multi-data-'));
  onCleanup('multi-instance DATA_DIR', () => rmSync(dataDir, { recursive: true, force: true }));
  const shared = {
    JWT_SECRET: randomBytes(32).toString('hex'),
    CREDENTIALS_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    DATA_DIR: dataDir,
    SEED_DEMO: 'false',
    ...extraEnv,
  };
  const processes = await Promise.all(Array.from({ length: count }, () => startServerProcess(databaseUrl, shared)));
  return processes.map((p, i) => {
    const name = `i${i + 1}`;
    return { name, port: Number(new URL(p.baseUrl).port), process: p, api: countedClient(name, p.baseUrl, tally) };
  });
}
