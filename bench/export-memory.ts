/**
 * Measures the server's memory while it streams a CSV export of N entries
 * (default 100,000): `npx tsx bench/export-memory.ts [N]`.
 * Starts its own embedded PostgreSQL in a temp dir; the server runs in this process.
 */
import 'reflect-metadata';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../server/config.js';
import { createLogger } from '../server/lib/logger.js';
import { resolveSecrets } from '../server/lib/secrets.js';
import { setRuntime } from '../server/runtime.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { closeDatabase, connectDatabase, db } from '../server/db/database.js';
import { migrateUp } from '../server/db/migrate.js';
import { createApp } from '../server/app.js';
import { PERMISSIONS } from '../shared/permissions.js';
import { hashPassword } from '../server/domains/auth/passwords.js';

const N = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(path.join(os.tmpdir(), 'fes-bench-'));
chmodSync(dir, 0o755);
const pgServer = await startEmbeddedPostgres({
  dataDir: dir,
  port: 55000 + Math.floor(Math.random() * 1000),
  persistent: false,
  durable: false,
});
try {
  const admin = new pg.Client({ connectionString: pgServer.url('postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE bench');
  await admin.end();
  const url = pgServer.url('bench');
  const config = loadConfig({
    DATABASE_URL: url,
    JWT_SECRET: 'x'.repeat(40),
    CREDENTIALS_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
    LOG_LEVEL: 'silent',
  });
  setRuntime({ config, secrets: resolveSecrets(config), logger: createLogger('silent') });
  await migrateUp(connectDatabase(url));
  const sql = (q: string, replacements: Record<string, unknown> = {}) => db().query(q, { replacements });
  await sql(
    `INSERT INTO users (email, name, password_hash, permissions) VALUES ('bench@example.com', 'Bench', :hash, ARRAY[:perms]::text[])`,
    {
      hash: await hashPassword('bench-password-1'),
      perms: [...PERMISSIONS],
    },
  );
  await sql(`INSERT INTO workspaces (name) VALUES ('Bench'); INSERT INTO workspace_members SELECT 1, id FROM users;
             INSERT INTO projects (workspace_id, name) VALUES (1, 'P1'), (1, 'P2');
             INSERT INTO entry_sources (workspace_id, kind, name) VALUES (1, 'MANUAL', 'Manual');
             INSERT INTO parties (workspace_id, name, party_type) SELECT 1, 'Party ' || g, 'ORGANIZATION' FROM generate_series(1, 200) g;
             INSERT INTO tags (workspace_id, name) SELECT 1, 'tag' || g FROM generate_series(1, 20) g;`);
  await sql(
    `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, base_currency, amount_cents, from_party_id, to_party_id, entry_date, description, reference)
     SELECT 1, 1 + g % 2, 1, CASE WHEN g % 3 = 0 THEN 'INCOME' ELSE 'EXPENSE' END, (ARRAY['USD','EUR','JPY'])[1 + g % 3], 100 + (g::bigint * 7919) % 1000000,
            1 + g % 200, 1 + (g * 13) % 200, DATE '2024-01-01' + (g % 1000), 'Bench entry ' || g || ', with "quotes"', 'REF-' || g
       FROM generate_series(1, :n) g`,
    { n: N },
  );
  await sql(`INSERT INTO entry_tags (entry_id, tag_id, workspace_id) SELECT id, 1 + id % 20, 1 FROM entries WHERE id % 2 = 0`);
  await sql('ANALYZE');

  const server = http.createServer(createApp());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password-1' }),
  });
  const { access_token: token } = (await login.json()) as { access_token: string };

  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  const res = await fetch(`${base}/entries/export/csv?workspaceId=1`, { headers: { authorization: `Bearer ${token}` } });
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  console.log(
    JSON.stringify({
      rows: lines - 1,
      bytes,
      seconds: +seconds.toFixed(2),
      rowsPerSecond: Math.round((lines - 1) / seconds),
      rssBeforeMB: +mb(before),
      rssPeakMB: +mb(peak),
      rssGrowthMB: +mb(peak - before),
    }),
  );
  await new Promise<void>((r) => server.close(() => r()));
  await closeDatabase();
} finally {
  await pgServer.stop();
  rmSync(dir, { recursive: true, force: true });
}
