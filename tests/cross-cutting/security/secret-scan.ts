import { runtime } from '../../../server/runtime.js';

/**
 * Scans every response the test client receives (tests/support/http.ts `client()`) for
 * secrets: password/API-key hashes, sealed credentials, webhook secrets, the runtime's own
 * secrets (JWT secret, credential keys) and plaintext secrets the tests registered.
 * Integration API keys (`fes_live_…`) are the documented exception: allowed only in the
 * responses of `POST /integrations` and `POST /integrations/{id}/rotate-key`; apps' keys (`fes_app_…`)
 * only in those of `POST /api-keys` and `POST /api-keys/{id}/rotate`.
 */

const registered = new Set<string>();
let scanned = 0;

/** Marks a plaintext secret (credential value, webhook secret, API key, …) that no response may contain. */
export function registerSecret(value: string): void {
  if (value.length < 6) throw new Error(`registerSecret: "${value}" is too short to scan for without false hits`);
  registered.add(value);
}

/** How many responses the scanner has checked in this test file. */
export const scannedResponses = (): number => scanned;

const FORBIDDEN_KEYS = new Set([
  'passwordHash',
  'password_hash',
  'password',
  'keyHash',
  'key_hash',
  'apiKeyHash',
  'api_key_hash',
  'credentialsEncrypted',
  'credentials_encrypted',
  'credentialsCiphertext',
  'credentials_ciphertext',
  'webhookSecret',
  'webhook_secret',
  'webhookSecretCiphertext',
  'webhook_secret_ciphertext',
  'secretCiphertext',
  'secret_ciphertext',
  'previous_secret_ciphertext',
]);
const API_KEY = /fes_live_[A-Za-z0-9]{8}_[A-Za-z0-9]{40}/;
const API_KEY_ROUTES = [/^\/integrations\/?$/, /^\/integrations\/[^/]+\/rotate-key\/?$/];
/** Apps' API keys (CONTRACT §19): only in the create and rotate responses, REST or tRPC. */
const APP_KEY = /fes_app_[A-Za-z0-9]{8}_[A-Za-z0-9]{43}/;
const APP_KEY_ROUTES = [/^\/api-keys\/?$/, /^\/api-keys\/[^/]+\/rotate\/?$/, /^\/trpc\/apiKeys\.(create|rotate)$/];
/** Outbound webhook signing secrets (CONTRACT §15): only in the create and rotate-secret responses. */
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/]{43}=/;
const OPENAPI_DOCUMENTS = new Set(['/openapi.json', '/openapi-3.0.json']);
const WEBHOOK_SECRET_ROUTES = [/^\/webhook-endpoints\/?$/, /^\/webhook-endpoints\/[^/]+\/rotate-secret\/?$/];

function runtimeSecrets(): string[] {
  try {
    const { jwtSecret, credentialsKeys } = runtime().secrets;
    return [jwtSecret, ...credentialsKeys.flatMap(({ key }) => [key.toString('base64'), key.toString('hex'), key.toString('base64url')])];
  } catch {
    return []; // runtime not initialised (a test of the client itself)
  }
}

function forbiddenKeyIn(value: unknown, path: string): string | undefined {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = forbiddenKeyIn(value[i], `${path}[${i}]`);
      if (hit) return hit;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (FORBIDDEN_KEYS.has(k) && v !== null && v !== undefined && v !== '') return `${path}.${k}`;
      const hit = forbiddenKeyIn(v, `${path}.${k}`);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** Throws when a response text holds a secret; `method path` names the request in the message. */
export function scanResponse(method: string, path: string, text: string, json?: unknown): void {
  scanned++;
  const where = `${method} ${path}`;
  if (text.includes('$argon2')) throw new Error(`secret scan: argon2 hash in the response of ${where}`);
  const pathname = path.split('?')[0];
  // the OpenAPI documents are static text generated from the code: their examples of an API key and a
  // signing secret match the documented patterns by design (the runtime-secret check below still applies)
  const documentExample = method === 'GET' && OPENAPI_DOCUMENTS.has(pathname ?? '');
  if (API_KEY.test(text) && !documentExample && !(method === 'POST' && API_KEY_ROUTES.some((r) => r.test(pathname)))) {
    throw new Error(`secret scan: an integration API key in the response of ${where}`);
  }
  if (APP_KEY.test(text) && !documentExample && !(method === 'POST' && APP_KEY_ROUTES.some((r) => r.test(pathname)))) {
    throw new Error(`secret scan: an app's API key in the response of ${where}`);
  }
  if (WEBHOOK_SECRET.test(text) && !documentExample && !(method === 'POST' && WEBHOOK_SECRET_ROUTES.some((r) => r.test(pathname)))) {
    throw new Error(`secret scan: a webhook signing secret in the response of ${where}`);
  }
  for (const secret of [...runtimeSecrets(), ...registered]) {
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (text.includes(secret) || text.includes(escaped)) throw new Error(`secret scan: a registered secret in the response of ${where}`);
  }
  // the OpenAPI document names these fields in its schemas; it holds no values
  const key = json === undefined || OPENAPI_DOCUMENTS.has(pathname ?? '') ? undefined : forbiddenKeyIn(json, '$');
  if (key) throw new Error(`secret scan: field ${key} in the response of ${where}`);
}

/** Where a plaintext secret was found in the database: `schema.table.column`. */
export type DatabaseHit = { secret: string; column: string };

/**
 * Looks for each plaintext secret in every text, varchar, char, json, jsonb, bytea (and array of
 * them) column of every table outside PostgreSQL's own schemas. A column that keeps a secret's hash
 * or ciphertext does not hold the plaintext, so it passes; any other copy is a hit.
 */
export async function scanDatabase(secrets: string[]): Promise<DatabaseHit[]> {
  const { db } = await import('../../../server/db/database.js');
  const { QueryTypes } = await import('sequelize');
  const columns = await db().query<{ schema: string; table: string; column: string; type: string }>(
    `SELECT c.table_schema AS schema, c.table_name AS table, c.column_name AS column, c.udt_name AS type
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema')
        AND c.udt_name IN ('text', 'varchar', 'bpchar', 'json', 'jsonb', 'bytea', '_text', '_varchar', '_jsonb')`,
    { type: QueryTypes.SELECT },
  );
  const hits: DatabaseHit[] = [];
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  for (const c of columns) {
    const column = `${quote(c.schema)}.${quote(c.table)}.${quote(c.column)}`;
    // bytea: the secret's UTF-8 bytes anywhere in the value; everything else: its text form
    const test =
      c.type === 'bytea'
        ? `position(convert_to(s, 'UTF8') IN x.${quote(c.column)}) > 0`
        : `strpos(x.${quote(c.column)}::text, s) > 0 OR strpos(x.${quote(c.column)}::text, to_json(s)::text) > 0`;
    const found = await db().query<{ s: string }>(
      `SELECT DISTINCT s FROM ${quote(c.schema)}.${quote(c.table)} x, unnest(ARRAY[:secrets]::text[]) AS s WHERE ${test}`,
      { replacements: { secrets }, type: QueryTypes.SELECT },
    );
    for (const f of found) hits.push({ secret: f.s, column });
  }
  return hits;
}
