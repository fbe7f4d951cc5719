import { resolveGuarded, type ResolvedAddress } from '../../../lib/address-guard.js';
import { runtime } from '../../../runtime.js';

export { nonPublicReason, useLookup, type LookupAll, type ResolvedAddress } from '../../../lib/address-guard.js';

/**
 * The generic HTTP adapter's use of the SSRF guard (server/lib/address-guard.ts, CONTRACT §9):
 * with `guard`, the provider host must resolve to public addresses only, unless
 * ACCOUNTING_ALLOW_PRIVATE_HOSTS=true; without it (operator-configured URLs) it is only resolved
 * and pinned.
 */
export const resolveTarget = (hostname: string, opts: { guard: boolean }): Promise<ResolvedAddress> =>
  resolveGuarded(hostname, {
    allowPrivate: !opts.guard || runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS,
    label: 'provider host',
    setting: 'ACCOUNTING_ALLOW_PRIVATE_HOSTS',
  });
