/**
 * Re-encrypts every stored connection secret (credentials, webhook secrets), every outbound
 * webhook endpoint's signing secrets and every stored Idempotency-Key response under the first
 * key of CREDENTIALS_KEYS.
 *
 *   CREDENTIALS_KEYS="k2:<new base64 key>,k1:<old base64 key>" npm run rotate-keys
 *
 * Keep the old key in CREDENTIALS_KEYS (after the new one) until this has run; then it may be
 * dropped. The server must run with the same CREDENTIALS_KEYS. With the embedded database the
 * server must be stopped first (the script starts the embedded PostgreSQL itself).
 * Prints `{"connections":n,"reencrypted":m,"storedResponses":r,"storedResponsesReencrypted":s,
 * "webhookEndpoints":e,"webhookReencrypted":f}`; never prints a key or a secret.
 */
import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../server/config.js';
import { closeDatabase, connectDatabase, db } from '../server/db/database.js';
import { startEmbeddedPostgres, type EmbeddedServer } from '../server/db/embedded.js';
import { createLogger } from '../server/lib/logger.js';
import { resolveSecrets } from '../server/lib/secrets.js';
import { setRuntime } from '../server/runtime.js';
import { rotateConnectionSecrets, type RotationResult } from '../server/domains/accounting/connections/key-rotation.js';
import { rotateStoredResponses } from '../server/http/idempotency-store.js';
import { rotateEndpointSecrets, type EndpointRotationResult } from '../server/domains/outbound-webhooks/index.js';

type Rotated = RotationResult & { storedResponses: number; storedResponsesReencrypted: number } & EndpointRotationResult;

const EMBEDDED_DB = 'finance';

function embeddedServerRunning(dataDir: string): boolean {
  const pidFile = path.resolve(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    return Number.isInteger(pid) && pid > 0 && process.kill(pid, 0);
  } catch {
    return false;
  }
}

export async function rotateKeys(env: NodeJS.ProcessEnv = process.env): Promise<Rotated> {
  const config = loadConfig(env);
  const secrets = resolveSecrets(config);
  setRuntime({ config, secrets, logger: createLogger('silent') });
  let embedded: EmbeddedServer | undefined;
  let url = config.DATABASE_URL;
  if (!url) {
    if (embeddedServerRunning(config.DATA_DIR)) {
      throw new Error('The embedded database is in use by a running server: stop the server first, then run rotate-keys');
    }
    embedded = await startEmbeddedPostgres({ dataDir: config.DATA_DIR, port: config.EMBEDDED_PG_PORT });
    url = embedded.url(EMBEDDED_DB);
  }
  connectDatabase(url, { poolMax: 2 });
  try {
    const [[{ present }]] = (await db().query(`SELECT to_regclass('accounting_connections') IS NOT NULL AS present`)) as [
      [{ present: boolean }],
      unknown,
    ];
    if (!present)
      return {
        connections: 0,
        reencrypted: 0,
        storedResponses: 0,
        storedResponsesReencrypted: 0,
        webhookEndpoints: 0,
        webhookReencrypted: 0,
      };
    const connections = await rotateConnectionSecrets(secrets.credentialsKeys);
    const responses = await rotateStoredResponses(secrets.credentialsKeys);
    const endpoints = await rotateEndpointSecrets(secrets.credentialsKeys);
    return { ...connections, storedResponses: responses.responses, storedResponsesReencrypted: responses.reencrypted, ...endpoints };
  } finally {
    await closeDatabase();
    await embedded?.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  rotateKeys()
    .then((result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    })
    .catch((err: unknown) => {
      process.stderr.write(`rotate-keys failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
