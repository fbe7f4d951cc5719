import { z } from 'zod/v4';
import { parseDatabaseUrl } from './db/hosts.js';

const isDatabaseUrl = (v: string) => {
  try {
    parseDatabaseUrl(v);
    return true;
  } catch {
    return false;
  }
};

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const int = (def: number) => z.coerce.number().int().positive().default(def);

const EnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // the address the API listens on; 0.0.0.0 = every IPv4 interface, 127.0.0.1 = this machine only
  HOST: z.string().min(1).default('0.0.0.0'),
  // one host, or several (`postgres://h1:5432,h2:5432/db?target_session_attrs=read-write`, CONTRACT §22)
  DATABASE_URL: z.string().refine(isDatabaseUrl, 'must be a postgres:// URL, with one host or several (h1:5432,h2:5432)').optional(),
  DATA_DIR: z.string().default('./.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1024).max(65535).default(54329),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_ISSUER: z.string().max(200).default('finance-entries-service'),
  JWT_AUDIENCE: z.string().max(200).default('finance-entries-api'),
  SESSION_MAX_AGE_HOURS: z.coerce.number().positive().default(12),
  CREDENTIALS_KEYS: z
    .string()
    .regex(/^[A-Za-z0-9_-]+:[A-Za-z0-9+/=]+(,[A-Za-z0-9_-]+:[A-Za-z0-9+/=]+)*$/, 'must be kid:base64key[,kid:base64key…]')
    .optional(),
  ADMIN_EMAIL: z.string().email().optional(),
  ADMIN_PASSWORD: z.string().min(10, 'must be at least 10 characters').optional(),
  SEED_DEMO: bool.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  QUICKBOOKS_API_BASE_URL: z.string().url().default('https://quickbooks.api.intuit.com'),
  QUICKBOOKS_TOKEN_URL: z.string().url().default('https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer'),
  ACCOUNTING_ALLOW_PRIVATE_HOSTS: bool.default(false),
  ACCOUNTING_PROVIDER_TIMEOUT_MS: int(10_000),
  ACCOUNTING_PROVIDER_RETRY_BASE_MS: int(250),
  STORAGE: z.enum(['local', 's3']).default('local'),
  S3_ENDPOINT: z.string().url().optional(),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: bool.default(true),
  BODY_LIMIT_BYTES: int(1024 * 1024),
  INGEST_BODY_LIMIT_BYTES: int(10 * 1024 * 1024),
  UPLOAD_LIMIT_BYTES: int(25 * 1024 * 1024),
  LOGIN_MAX_FAILURES: int(10),
  LOGIN_WINDOW_MINUTES: int(15),
  INGEST_RATE_PER_MINUTE: int(600),
  API_KEY_RATE_PER_MINUTE: int(6000),
  // rows of GET /reports/flows (largest first); beyond it the response says X-Truncated: true
  REPORT_FLOWS_LIMIT: int(1000),
  SHUTDOWN_TIMEOUT_MS: int(10_000),
  // outbound webhooks (CONTRACT §15)
  WEBHOOK_ALLOW_PRIVATE_HOSTS: bool.default(false),
  WEBHOOK_TIMEOUT_MS: int(10_000),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d{1,6}(,\d{1,6}){0,19}$/, 'must be comma-separated delays in seconds, e.g. 5,300,1800')
    .default('5,300,1800,7200,18000,36000,36000')
    .transform((v) => v.split(',').map(Number)),
  // CONTRACT §17: how many days before an entry's date its currency's latest rate may be
  FX_MAX_RATE_AGE_DAYS: z.coerce.number().int().min(0).max(3660).default(7),
  // when set, GET /metrics answers only `Authorization: Bearer <METRICS_TOKEN>` (else 401)
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // how long a verified session (user, permissions, memberships) is served from memory; 0 = read on every request
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  // npm run bench only: mounts the baseline procedures of server/trpc/bench-baseline.router.ts
  BENCH_BASELINE: bool.default(false),
});

export type Config = z.infer<typeof EnvSchema> & { embedded: boolean };

export class ConfigError extends Error {}

/**
 * Whether the bench's baseline procedures are mounted (BENCH_BASELINE=1, bench/run.ts). Read while the app
 * router's module loads, which may be before loadConfig runs; parsed by the same rule as its config field.
 */
export const benchBaselineRequested = (env: NodeJS.ProcessEnv = process.env): boolean =>
  EnvSchema.shape.BENCH_BASELINE.safeParse(env.BENCH_BASELINE).data ?? false; // a bad value: loadConfig names it

/** Parses the environment once. The only reader of process.env in the service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  const embedded = !cfg.DATABASE_URL;
  if (!embedded && !cfg.JWT_SECRET) {
    throw new ConfigError('Invalid configuration:\n  JWT_SECRET: required when DATABASE_URL is set');
  }
  if (!embedded && !cfg.CREDENTIALS_KEYS) {
    throw new ConfigError('Invalid configuration:\n  CREDENTIALS_KEYS: required when DATABASE_URL is set');
  }
  if (cfg.STORAGE === 's3' && (!cfg.S3_BUCKET || !cfg.S3_ENDPOINT)) {
    throw new ConfigError('Invalid configuration:\n  S3_BUCKET/S3_ENDPOINT: required when STORAGE=s3');
  }
  return { ...cfg, SEED_DEMO: cfg.SEED_DEMO ?? embedded, embedded };
}
