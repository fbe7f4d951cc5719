import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { unauthorized, notFound } from '../../../lib/errors.js';
import { loadConnection, type ConnectionRow } from '../connections/connection-rows.js';
import { readCredentials, readWebhookSecret } from '../connections/connection-secrets.js';

/**
 * The checks of CONTRACT §10, in order, each before any action:
 * 1. unknown or inactive connection → 404;
 * 2. `config.webhookSecret` set and `X-Webhook-Secret` missing or different → 401;
 * 3. QUICKBOOKS with `credentials.webhookVerifierToken`: `intuit-signature` must be
 *    base64(HMAC-SHA256(verifierToken, raw body)) → else 401.
 * Comparisons are constant-time over fixed-length digests (HMAC-SHA256 of both sides under a
 * per-process key), so neither the length nor a prefix of the secret leaks through timing.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const compareKey = randomBytes(32);

const digest = (value: string | Buffer) => createHmac('sha256', compareKey).update(value).digest();

/** Constant-time equality of two strings of any lengths. */
export function sameSecret(given: string | Buffer, expected: string | Buffer): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export async function webhookConnection(connectionId: string): Promise<ConnectionRow> {
  if (!UUID.test(connectionId)) throw notFound('Accounting connection');
  const connection = await loadConnection(null, connectionId.toLowerCase());
  if (!connection.is_active) throw notFound('Accounting connection');
  return connection;
}

export function assertWebhookSecret(connection: ConnectionRow, header: string | undefined): void {
  const secret = readWebhookSecret(connection);
  if (secret === null) return;
  if (header === undefined || !sameSecret(header, secret)) throw unauthorized('Webhook secret missing or wrong');
}

/** intuit-signature = base64(HMAC-SHA256(webhookVerifierToken, raw request body)). */
export const intuitSignature = (verifierToken: string, rawBody: Buffer) =>
  createHmac('sha256', verifierToken).update(rawBody).digest('base64');

export function assertProviderSignature(connection: ConnectionRow, header: string | undefined, rawBody: Buffer): void {
  if (connection.provider_type !== 'QUICKBOOKS') return;
  const token = readCredentials(connection).webhookVerifierToken;
  if (typeof token !== 'string' || !token) return;
  if (header === undefined || !sameSecret(header.trim(), intuitSignature(token, rawBody))) {
    throw unauthorized('Webhook signature (intuit-signature) missing or wrong');
  }
}
