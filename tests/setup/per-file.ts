import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { connectDatabase, closeDatabase } from '../../server/db/database.js';
import { createLogger } from '../../server/lib/logger.js';
import { setRuntime } from '../../server/runtime.js';
import { clock } from '../../server/lib/clock.js';

const TEMPLATE_DB = 'fes_template';

/** Each test file gets its own database, cloned from the migrated template. */
const serverUrl = inject('pgServerUrl');
const dbName = `t_${randomBytes(6).toString('hex')}`;
const citusNodes = inject('citusNodes');
const citus = citusNodes.length > 0 ? await import('./citus-template.js') : undefined;
if (citus) await citus.cloneOnEveryNode(citusNodes, TEMPLATE_DB, dbName);
else {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName} TEMPLATE ${TEMPLATE_DB}`);
  await admin.end();
}

const databaseUrl = serverUrl.replace(/\/postgres$/, `/${dbName}`);
const config = loadConfig({
  DATABASE_URL: databaseUrl,
  JWT_SECRET: randomBytes(32).toString('hex'),
  CREDENTIALS_KEYS: `test1:${randomBytes(32).toString('base64')}`,
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  DATA_DIR: `${process.env.TMPDIR ?? '/tmp'}/fes-files-${dbName}`,
  SEED_DEMO: 'false',
});
const { resolveSecrets } = await import('../../server/lib/secrets.js');
setRuntime({ config, secrets: resolveSecrets(config), logger: createLogger(config.LOG_LEVEL) });
connectDatabase(databaseUrl, { poolMax: 20 });

afterAll(async () => {
  clock.reset();
  await closeDatabase();
  await citus?.dropOnEveryNode(citusNodes, dbName); // three databases per file would fill the disk
  rmSync(config.DATA_DIR, { recursive: true, force: true }); // the file's uploaded documents
});
