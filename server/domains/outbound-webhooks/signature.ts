import { createHmac } from 'node:crypto';
import { SECRET_PREFIX } from './endpoint-secrets.js';

/**
 * Standard Webhooks signatures (CONTRACT §15): `v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>`
 * keyed with the base64-decoded part of the secret after `whsec_`; several signatures (during a
 * rotation) are separated by a space.
 */
export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export type WebhookHeaders = { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };

export function signedHeaders(secrets: readonly string[], id: string, timestamp: number, body: string): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signatureOf(s, id, timestamp, body)).join(' '),
  };
}
