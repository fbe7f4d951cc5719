import { CronExpressionParser } from 'cron-parser';
import { badRequest } from '../../../lib/errors.js';
import { BUILT_IN_PROVIDERS, QuickBooksCredentials } from '../../../../shared/contracts/accounting.js';

const MAX_SECRET_JSON = 16 * 1024;
const MAX_CONFIG_JSON = 16 * 1024;

/** `syncScheduleCron` must be a 5-field cron expression that cron-parser accepts (400). */
export function assertCron(expression: string | null | undefined): void {
  if (expression === null || expression === undefined) return;
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) throw badRequest(`syncScheduleCron must have 5 fields (minute hour day month weekday), got ${fields.length}`);
  try {
    CronExpressionParser.parse(expression);
  } catch (err) {
    throw badRequest(`syncScheduleCron is not a valid cron expression: ${(err as Error).message}`);
  }
}

const isBuiltIn = (providerType: string) => (BUILT_IN_PROVIDERS as readonly string[]).includes(providerType);

/**
 * Config as stored (never with `webhookSecret`): a custom provider type needs an http(s)
 * `baseUrl`; whether that host may be reached is checked when a request is made (sync).
 */
export function assertConfig(providerType: string, config: Record<string, unknown>): void {
  if (JSON.stringify(config).length > MAX_CONFIG_JSON) throw badRequest(`config is larger than ${MAX_CONFIG_JSON} bytes`);
  const baseUrl = config.baseUrl;
  if (baseUrl !== undefined && !isHttpUrl(baseUrl)) throw badRequest('config.baseUrl must be an http or https URL');
  if (!isBuiltIn(providerType) && baseUrl === undefined) {
    throw badRequest(`A custom provider type (${providerType}) needs config.baseUrl, the http(s) URL of its API`);
  }
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** Size limit for every provider; QUICKBOOKS credentials must hold realm id and OAuth tokens (400). */
export function assertCredentials(providerType: string, credentials: Record<string, unknown>): void {
  if (JSON.stringify(credentials).length > MAX_SECRET_JSON) throw badRequest(`credentials are larger than ${MAX_SECRET_JSON} bytes`);
  if (providerType !== 'QUICKBOOKS') return;
  const parsed = QuickBooksCredentials.safeParse(credentials);
  if (!parsed.success) {
    // name the fields, never echo their values
    const fields = [...new Set(parsed.error.issues.map((i) => i.path.join('.') || '(root)'))].join(', ');
    throw badRequest(`QUICKBOOKS credentials need realmId, accessToken and refreshToken (strings); invalid: ${fields}`);
  }
}
