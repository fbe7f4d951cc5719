/**
 * The scratch database benchmarks run on: `BENCH_DATABASE_URL` when set, otherwise an
 * embedded PostgreSQL kept under `.data/bench` (port `BENCH_PG_PORT`, default 54339),
 * database `fes_bench`, migrated to the latest schema.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Sequelize } from 'sequelize-typescript';
import { startEmbeddedPostgres, type EmbeddedServer } from '../server/db/embedded.js';
import { connectDatabase, closeDatabase } from '../server/db/database.js';
import { migrateUp } from '../server/db/migrate.js';

export const BENCH_DB = 'fes_bench';

export type BenchDatabase = {
  url: string;
  sequelize: Sequelize;
  /** the embedded postmaster's pid (CPU accounting); undefined with BENCH_DATABASE_URL */
  postgresPid?: number;
  close: () => Promise<void>;
};

async function ensureDatabase(serverUrl: string, name: string, fresh: boolean): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    if (fresh) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}

/** `fresh` drops the embedded bench database first (ignored with BENCH_DATABASE_URL). */
export async function openBenchDatabase(opts: { poolMax?: number; fresh?: boolean } = {}): Promise<BenchDatabase> {
  let server: EmbeddedServer | undefined;
  let url = process.env.BENCH_DATABASE_URL;
  if (!url) {
    const port = Number(process.env.BENCH_PG_PORT ?? 54339);
    server = await startEmbeddedPostgres({ dataDir: path.resolve('.data/bench'), port, durable: false, log: (m) => console.error(m) });
    await ensureDatabase(server.url('postgres'), BENCH_DB, opts.fresh ?? false);
    url = server.url(BENCH_DB);
  }
  const sequelize = connectDatabase(url, { poolMax: opts.poolMax ?? 10 });
  await migrateUp(sequelize);
  return {
    url,
    sequelize,
    postgresPid: server ? Number(readFileSync(path.resolve('.data/bench/pg/postmaster.pid'), 'utf8').split('\n')[0]) : undefined,
    close: async () => {
      await closeDatabase();
      await server?.stop();
    },
  };
}
