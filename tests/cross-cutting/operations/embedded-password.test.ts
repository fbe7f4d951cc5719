import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedPostgres, freePort, startEmbeddedPostgres } from '../../../server/db/embedded.js';

/** Issue 18 item 6: the embedded PostgreSQL has a generated password, kept in DATA_DIR (0600), never `postgres`. */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fes-embedded-'));
  chmodSync(dir, 0o755); // the unprivileged postgres user (when run as root) must reach it
  dirs.push(dir);
  return dir;
}

async function connects(url: string): Promise<true | string> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const withPassword = (url: string, password: string) => {
  const u = new URL(url);
  u.password = password;
  return u.toString();
};

describe('embedded PostgreSQL password', () => {
  it('is generated on first start, kept 0600 in DATA_DIR, reused on the next start; `postgres` is refused', async () => {
    const dir = dataDir();
    const port = await freePort();
    const first = await startEmbeddedPostgres({ dataDir: dir, port, durable: false });
    const url = first.url('postgres');
    try {
      expect(statSync(path.join(dir, 'pg-password')).mode & 0o777).toBe(0o600);
      expect(new URL(url).password).not.toBe('postgres');
      expect(await connects(url)).toBe(true);
      expect(await connects(withPassword(url, 'postgres'))).toBe('28P01'); // invalid_password
    } finally {
      await first.stop();
    }
    const again = await startEmbeddedPostgres({ dataDir: dir, port, durable: false });
    try {
      expect(again.url('postgres')).toBe(url);
      expect(await connects(url)).toBe(true);
    } finally {
      await again.stop();
    }
  }, 120_000);

  it('a cluster made with the old fixed password gets a generated one on its next start', async () => {
    const dir = dataDir();
    const port = await freePort();
    await embeddedPostgres({ pgdata: path.join(dir, 'pg'), port, password: 'postgres', durable: false }).initialise();
    const server = await startEmbeddedPostgres({ dataDir: dir, port, durable: false });
    try {
      const url = server.url('postgres');
      expect(statSync(path.join(dir, 'pg-password')).mode & 0o777).toBe(0o600);
      expect(await connects(url)).toBe(true);
      expect(await connects(withPassword(url, 'postgres'))).toBe('28P01');
    } finally {
      await server.stop();
    }
  }, 120_000);
});
