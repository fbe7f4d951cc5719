import { assertPublicHost, resolveGuarded, type GuardOptions, type ResolvedAddress } from '../../../lib/address-guard.js';
import { runtime } from '../../../runtime.js';

export { nonPublicReason, useLookup, type LookupAll, type ResolvedAddress } from '../../../lib/address-guard.js';

/**
 * The accounting providers' use of the SSRF guard (server/lib/address-guard.ts, CONTRACT §9): the
 * generic adapter's host must resolve to public addresses only, unless
 * ACCOUNTING_ALLOW_PRIVATE_HOSTS=true; operator-configured URLs (`guard: false`) are only resolved
 * and pinned.
 */
const options = (guard: boolean): GuardOptions => ({
  allowPrivate: !guard || runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS,
  label: 'provider host',
  setting: 'ACCOUNTING_ALLOW_PRIVATE_HOSTS',
});

export const resolveTarget = (hostname: string, opts: { guard: boolean }): Promise<ResolvedAddress> =>
  resolveGuarded(hostname, options(opts.guard));

/**
 * The same guard when a connection's `config.baseUrl` is saved (create, update): 400 when its host
 * is, or now resolves to, a non-public address. A name that does not resolve yet is left to the
 * check made on every call; a value that is no URL is left to assertConfig.
 */
export async function assertPublicBaseUrl(baseUrl: unknown): Promise<void> {
  if (typeof baseUrl !== 'string') return;
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    return;
  }
  await assertPublicHost(host, options(true));
}
