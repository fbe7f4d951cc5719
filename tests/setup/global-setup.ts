import 'reflect-metadata';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { freePort, startEmbeddedPostgres } from '../../server/db/embedded.js';
import { connectDatabase, closeDatabase } from '../../server/db/database.js';
import { migrateUp } from '../../server/db/migrate.js';
import { freezeTemplate, startCitusTemplate } from './citus-template.js';

export const TEMPLATE_DB = 'fes_template';

/** One real PostgreSQL for the run, with a migrated template database that each test file clones. */
export default async function setup(project: TestProject) {
  if (process.env.TEST_CITUS === '1') return setupCitus(project);
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
  project.provide('citusNodes', []);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

/** TEST_CITUS=1: the template migrated on a Citus cluster (its tenant tables distributed); each file clones it on every node. */
async function setupCitus(project: TestProject) {
  const citus = await startCitusTemplate(TEMPLATE_DB);
  const sequelize = connectDatabase(citus.templateUrl, { poolMax: 1 });
  await migrateUp(sequelize);
  await closeDatabase();
  await freezeTemplate(citus.nodes, TEMPLATE_DB);
  project.provide('pgServerUrl', citus.nodes[0]);
  project.provide('citusNodes', citus.nodes);
  return citus.stop;
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
    /** TEST_CITUS=1: superuser URLs of database postgres on the coordinator and each worker; otherwise empty */
    citusNodes: string[];
  }
}
