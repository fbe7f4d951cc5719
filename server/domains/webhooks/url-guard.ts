import { resolveGuarded, type ResolvedAddress } from '../../lib/address-guard.js';
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

export const resolveWebhookHost = (url: URL): Promise<ResolvedAddress> =>
  resolveGuarded(url.hostname, {
    allowPrivate: runtime().config.WEBHOOK_ALLOW_PRIVATE_HOSTS,
    label: 'webhook host',
    setting: 'WEBHOOK_ALLOW_PRIVATE_HOSTS',
  });

/** The write-time check: 400 for a URL that is not http(s) or whose host is not allowed. */
export async function assertWebhookUrl(raw: string): Promise<void> {
  await resolveWebhookHost(parseWebhookUrl(raw));
}
