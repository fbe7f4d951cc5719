import 'reflect-metadata';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { freePort, startEmbeddedPostgres } from '../../server/db/embedded.js';
import { connectDatabase, closeDatabase } from '../../server/db/database.js';
import { migrateUp } from '../../server/db/migrate.js';

export const TEMPLATE_DB = 'fes_template';

/** One real PostgreSQL for the run, with a migrated template database that each test file clones. */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fes-test-'));
  chmodSync(dir, 0o755); // the unprivileged postgres user (when run as root) must reach it
  const port = await freePort();
  const server = await startEmbeddedPostgres({ dataDir: dir, port, persistent: false, durable: false });
  const admin = new pg.Client({ connectionString: server.url('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  const sequelize = connectDatabase(server.url(TEMPLATE_DB), { poolMax: 1 });
  await migrateUp(sequelize);
  await closeDatabase();
  project.provide('pgServerUrl', server.url('postgres'));
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
  }
}
