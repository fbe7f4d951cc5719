import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_DIR, OPENAPI_31, run, walkWorld } from './harness.js';

/**
 * Issue 30: Prism (@stoplight/prism-cli, pinned; installed into the cache dir, not the project) as a
 * validating proxy in front of the service reports no violation for correct rule bodies, `between`
 * conditions included (they were prefixItems tuples Prism refused).
 */

const PRISM_VERSION = '5.14.2';
const PRISM_DIR = path.join(CACHE_DIR, `prism-${PRISM_VERSION}`);
const PRISM = path.join(PRISM_DIR, 'node_modules/.bin/prism');

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });

describe('Prism validating proxy', () => {
  it('reports no violation on correct rule bodies', async () => {
    const world = await walkWorld();
    if (!existsSync(PRISM)) {
      await run(
        'npm',
        ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', PRISM_DIR, `@stoplight/prism-cli@${PRISM_VERSION}`],
        {
          timeout: 300_000,
        },
      );
    }
    const port = await freePort();
    const prism = spawn(PRISM, ['proxy', OPENAPI_31, world.env.BASE_URL!, '--host', '127.0.0.1', '--port', String(port), '--errors'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await walkThroughPrism(prism, port, world.env);
    } finally {
      prism.kill();
    }
  });
});

async function walkThroughPrism(prism: ReturnType<typeof spawn>, port: number, env: NodeJS.ProcessEnv): Promise<void> {
  {
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`prism did not start:\n${log}`)), 120_000);
      const read = (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      prism.stdout?.on('data', read);
      prism.stderr?.on('data', read);
    });

    const proxy = `http://127.0.0.1:${port}`;
    const call = async (method: string, url: string, body?: unknown, token?: string) => {
      const res = await fetch(`${proxy}${url}`, {
        method,
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      expect(res.headers.get('sl-violations'), `${method} ${url}: ${res.headers.get('sl-violations')}`).toBeNull();
      expect(res.status, `${method} ${url}: ${text}`).toBe(200);
      return JSON.parse(text) as Record<string, any>;
    };

    const { access_token: token } = await call('POST', '/auth/login', { email: env.EMAIL, password: env.PASSWORD });
    const workspace = await call('POST', '/workspaces', { name: 'Prism', baseCurrency: 'USD' }, token);
    const conditions = [
      { field: 'amountCents', operator: 'between', value: [100_000, 500_000] },
      { field: 'description', operator: 'contains', value: 'consulting' },
      { field: 'entryType', operator: 'eq', value: 'EXPENSE' },
    ];
    const actions = [{ type: 'SET_EXCLUDE_FROM_SYNC', value: true }];
    const rule = await call(
      'POST',
      '/rules',
      { workspaceId: workspace.id, name: 'Large consulting', match: 'ALL', conditions, actions },
      token,
    );
    expect(rule.conditions[0]).toEqual(conditions[0]);
    await call('PATCH', `/rules/${rule.id}`, { conditions: [{ field: 'amountCents', operator: 'between', value: [1, 2] }] }, token);
    await call('POST', '/rules/preview', { workspaceId: workspace.id, match: 'ANY', conditions, actions }, token);
    await call('GET', `/rules/${rule.id}`, undefined, token);
    expect(log).not.toMatch(/violation/i);
  }
}
