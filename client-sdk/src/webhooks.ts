import type { WebhookEvent } from './events.js';

/**
 * Verifying the service's outbound webhooks (Standard Webhooks, CONTRACT §15) in a receiver:
 *
 * ```ts
 * const event = await verifyWebhook(process.env.WEBHOOK_SECRET!, req.headers, rawBody);
 * // event.id is the same on every retry: deduplicate by it
 * ```
 *
 * `webhook-signature` holds one or more `v1,<base64 HMAC-SHA256>` (space separated; two during
 * the 24 hours after a secret rotation) of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed
 * with the base64-decoded part of the secret after `whsec_`. WebCrypto only (Node 20+, browsers,
 * edge runtimes); signatures are compared by `crypto.subtle.verify` (constant time).
 */

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type VerifyOptions = {
  /** how far `webhook-timestamp` may be from now, in seconds (default 300) */
  toleranceSeconds?: number;
  /** now, in milliseconds (tests) */
  now?: () => number;
};

/** Why a delivery was refused: missing headers, a stale or future timestamp, no matching signature. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const binary = atob(text);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Checks the signature and the timestamp of a delivery and returns its parsed body, typed by its
 * `type`; throws WebhookVerificationError otherwise. `rawBody` must be the bytes as received (not
 * re-serialised JSON).
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('The webhook-timestamp is outside the tolerance window');
  }
  const keyBytes = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (!keyBytes || keyBytes.length === 0) throw new WebhookVerificationError('The secret is not whsec_<base64>');
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const signed = encoder.encode(`${id}.${timestamp}.${body}`);
  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const signature = base64Bytes(value);
    if (signature && (await crypto.subtle.verify('HMAC', key, signature, signed))) {
      try {
        return JSON.parse(body) as WebhookEvent;
      } catch {
        throw new WebhookVerificationError('The body is not JSON');
      }
    }
  }
  throw new WebhookVerificationError('No webhook-signature matches');
}
