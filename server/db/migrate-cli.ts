import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded.js';
import { closeDatabase, connectDatabase } from './database.js';
import { migrateUp, pendingMigrations } from './migrate.js';

/**
 * `npm run migrate` (or `node dist/server/db/migrate-cli.js`): reads the server's configuration,
 * connects to DATABASE_URL (or starts the embedded PostgreSQL in DATA_DIR), applies pending
 * migrations under the same advisory lock the server takes at start, and exits.
 */

const EMBEDDED_DB = 'finance'; // the database server/main.ts uses in the embedded cluster

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** A server using the embedded cluster already migrated it when it started; starting a second postmaster would stop it. */
function runningPostmaster(dataDir: string): number | undefined {
  const pidFile = path.resolve(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

async function ensureDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

async function main(): Promise<number> {
  const config = readConfig();
  let embedded: EmbeddedServer | undefined;
  let url = config.DATABASE_URL;
  if (!url) {
    const pid = runningPostmaster(config.DATA_DIR);
    if (pid) {
      process.stderr.write(
        `The embedded PostgreSQL in ${config.DATA_DIR} is in use (pid ${pid}) by a running server, which applied ` +
          'migrations when it started. Stop it first, or set DATABASE_URL.\n',
      );
      return 1;
    }
    embedded = await startEmbeddedPostgres({ dataDir: config.DATA_DIR, port: config.EMBEDDED_PG_PORT });
    await ensureDatabase(embedded.url('postgres'), EMBEDDED_DB);
    url = embedded.url(EMBEDDED_DB);
  }
  try {
    const sequelize = connectDatabase(url, { poolMax: 2 });
    const applied = await migrateUp(sequelize);
    const left = await pendingMigrations(sequelize);
    if (left.length > 0) throw new Error(`migrations still pending: ${left.join(', ')}`);
    process.stdout.write(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}\n` : 'database is up to date\n');
    return 0;
  } finally {
    await closeDatabase();
    await embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`migrate failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
