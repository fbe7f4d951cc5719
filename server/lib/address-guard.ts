import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { badRequest } from './errors.js';

/**
 * The SSRF guard for every outbound call to a host a user chose (accounting providers of
 * CONTRACT §9, outbound webhooks of §15): the host must resolve only to public addresses, and the
 * caller then connects to the very address checked here (`pinnedLookup`: no second resolution a
 * DNS rebinding could change). Each caller says whether private hosts are allowed by its own
 * setting (ACCOUNTING_ALLOW_PRIVATE_HOSTS, WEBHOOK_ALLOW_PRIVATE_HOSTS); the resolution and the
 * pinning happen either way.
 */

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>;

const systemLookup: LookupAll = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

let lookupAll: LookupAll = systemLookup;

/** Tests replace the resolver (e.g. a name that resolves to a private and a public address); null restores it. */
export function useLookup(fn: LookupAll | null): void {
  lookupAll = fn ?? systemLookup;
}

type V4Range = [number, number, string];
const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
const cidr4 = (base: string, bits: number, label: string): V4Range => {
  const [a, b, c, d] = base.split('.').map(Number);
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return [(v4(a, b, c, d) & mask) >>> 0, mask, label];
};

/** IPv4 ranges that are not on the public internet. */
const PRIVATE_V4: V4Range[] = [
  cidr4('0.0.0.0', 8, 'unspecified ("this network")'),
  cidr4('10.0.0.0', 8, 'private'),
  cidr4('100.64.0.0', 10, 'carrier-grade NAT'),
  cidr4('127.0.0.0', 8, 'loopback'),
  cidr4('169.254.0.0', 16, 'link-local'),
  cidr4('172.16.0.0', 12, 'private'),
  cidr4('192.0.0.0', 24, 'IETF protocol assignments'),
  cidr4('192.0.2.0', 24, 'documentation'),
  cidr4('192.88.99.0', 24, '6to4 relay anycast'),
  cidr4('192.168.0.0', 16, 'private'),
  cidr4('198.18.0.0', 15, 'benchmarking'),
  cidr4('198.51.100.0', 24, 'documentation'),
  cidr4('203.0.113.0', 24, 'documentation'),
  cidr4('224.0.0.0', 4, 'multicast'),
  cidr4('240.0.0.0', 4, 'reserved'),
];

function parseV4(ip: string): number | null {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return null;
  const [a, b, c, d] = parts.map(Number);
  return v4(a, b, c, d);
}

function v4Reason(ip: string): string | null {
  const n = parseV4(ip);
  if (n === null) return 'not an IPv4 address';
  for (const [base, mask, label] of PRIVATE_V4) if ((n & mask) >>> 0 === base) return label;
  return null;
}

/** Eight 16-bit groups of an IPv6 address (with any embedded dotted IPv4 tail), or null. */
function parseV6(ip: string): number[] | null {
  let text = ip.toLowerCase().split('%')[0];
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const n = parseV4(tail[1]);
    if (n === null) return null;
    text = text.slice(0, -tail[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

const embeddedV4 = (g: number[], hi: number, lo: number) => `${g[hi] >> 8}.${g[hi] & 0xff}.${g[lo] >> 8}.${g[lo] & 0xff}`;

function v6Reason(ip: string): string | null {
  const g = parseV6(ip);
  if (!g) return 'not an IPv6 address';
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped), ::a.b.c.d (IPv4-compatible), 64:ff9b::a.b.c.d (NAT64): judged by the IPv4 inside
  if (zeroUpTo(5) && g[5] === 0xffff) return v4Reason(embeddedV4(g, 6, 7)) && `IPv4-mapped ${v4Reason(embeddedV4(g, 6, 7))}`;
  if (zeroUpTo(6)) return 'IPv4-compatible (deprecated)';
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    const inner = v4Reason(embeddedV4(g, 6, 7));
    return inner && `NAT64 ${inner}`;
  }
  if (g[0] === 0x2002) {
    const inner = v4Reason(embeddedV4(g, 1, 2));
    return inner && `6to4 ${inner}`;
  }
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0) return 'site-local (deprecated)';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation';
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return 'discard-only';
  return null;
}

/** Why an address may not be called (loopback, private, link-local, …), or null when it is public. */
export function nonPublicReason(address: string): string | null {
  const family = isIP(address);
  if (family === 4) return v4Reason(address);
  if (family === 6) return v6Reason(address);
  return 'not an IP address';
}

const bare = (hostname: string) => (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname);

export type GuardOptions = {
  /** false: any non-public address refuses the host */
  allowPrivate: boolean;
  /** what the host is, for messages: "provider host", "webhook host" */
  label: string;
  /** the setting that would allow private hosts, named in the refusal */
  setting: string;
};

function refuseNonPublic(host: string, addresses: ResolvedAddress[], opts: GuardOptions): void {
  for (const a of addresses) {
    const reason = nonPublicReason(a.address);
    if (reason) {
      throw badRequest(
        `The ${opts.label} "${host}" resolves to ${a.address} (${reason}); only public addresses may be called ` +
          `(${opts.setting} is off)`,
      );
    }
  }
}

/**
 * The write-time check of a URL's host (a provider baseUrl, a webhook endpoint url): 400 when it is,
 * or now resolves to, a non-public address. A name that does not resolve (yet) passes: the check
 * made before every call refuses it then.
 */
export async function assertPublicHost(hostname: string, opts: GuardOptions): Promise<void> {
  if (opts.allowPrivate) return;
  const host = bare(hostname);
  const literal = isIP(host);
  if (literal) return refuseNonPublic(host, [{ address: host, family: literal === 6 ? 6 : 4 }], opts);
  refuseNonPublic(host, await lookupAll(host).catch(() => []), opts);
}

/**
 * Resolves `hostname` (every address it has) and returns the one to connect to (IPv4 first). When private
 * hosts are not allowed, ANY non-public address among them refuses the host (400), so a name
 * that resolves to a public and a private address cannot be used to reach the private one.
 */
export async function resolveGuarded(hostname: string, opts: GuardOptions): Promise<ResolvedAddress> {
  const host = bare(hostname);
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await lookupAll(host);
    } catch {
      throw badRequest(`The ${opts.label} "${host}" does not resolve`);
    }
  }
  if (addresses.length === 0) throw badRequest(`The ${opts.label} "${host}" does not resolve`);
  if (!opts.allowPrivate) refuseNonPublic(host, addresses, opts);
  // every address passed: connect to the first, IPv4 preferred (as Node's ipv4first order does)
  return [...addresses].sort((a, b) => a.family - b.family)[0];
}

/** A `lookup` for http(s).request that answers with the checked address only (the connection is pinned to it). */
export function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}
