import { assertPublicHost, resolveGuarded, type GuardOptions, type ResolvedAddress } from '../../lib/address-guard.js';
import { badRequest } from '../../lib/errors.js';
import { runtime } from '../../runtime.js';

/**
 * Endpoint URLs (CONTRACT §15): http or https, and a host that resolves only to public addresses
 * unless WEBHOOK_ALLOW_PRIVATE_HOSTS=true: checked on every write (400) and again before every
 * attempt, whose connection is pinned to the address checked (server/lib/address-guard.ts).
 */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('url is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest('url must be http or https');
  return url;
}

/** The demo's own loopback receiver (server/seed/demo-webhook-receiver.ts): the one private URL allowed without the setting. */
let ownReceiver: string | null = null;

/** Demo mode only: lets endpoints point at exactly this URL of the service itself (origin and path). */
export function trustOwnReceiver(url: string | null): void {
  ownReceiver = url === null ? null : receiverKey(new URL(url));
}

/** The URL without query or fragment, `localhost` read as 127.0.0.1 (the receiver's own host when bound to loopback or every interface). */
function receiverKey(url: URL): string {
  const copy = new URL(url.href);
  if (copy.hostname === 'localhost') copy.hostname = '127.0.0.1';
  return `${copy.origin}${copy.pathname}`;
}

const isOwnReceiver = (url: URL) => ownReceiver !== null && receiverKey(url) === ownReceiver;

const guard = (url: URL): GuardOptions => ({
  allowPrivate: runtime().config.WEBHOOK_ALLOW_PRIVATE_HOSTS || isOwnReceiver(url),
  label: 'webhook host',
  setting: 'WEBHOOK_ALLOW_PRIVATE_HOSTS',
});

/** Before an attempt: the address to connect to, or 400 (AppError) when the host is refused or does not resolve. */
export const resolveWebhookHost = (url: URL): Promise<ResolvedAddress> => resolveGuarded(url.hostname, guard(url));

/**
 * The write-time check: 400 for a URL that is not http(s), or whose host is, or resolves to, a
 * non-public address. A name that does not resolve yet is accepted (its deliveries fail until it does).
 */
export async function assertWebhookUrl(raw: string): Promise<void> {
  const url = parseWebhookUrl(raw);
  await assertPublicHost(url.hostname, guard(url));
}
