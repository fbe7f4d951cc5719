import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { pinnedLookup, type ResolvedAddress } from '../../lib/address-guard.js';

/**
 * One delivery attempt over HTTP (CONTRACT §15): POST to the address the guard checked (pinned, no
 * second resolution), on keep-alive connections shared by every attempt of the process, within
 * a deadline; redirects are never followed (a 3xx is an answer like any other, and fails).
 */

export type SendResult =
  { kind: 'answer'; status: number; retryAfterSeconds: number | null; location: string | null } | { kind: 'error'; message: string };

const agentOptions = { keepAlive: true, maxSockets: 256, maxFreeSockets: 256, scheduling: 'lifo' as const };
const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
/** what is read of an answer's body before the connection is dropped (it is never used) */
const MAX_DRAIN_BYTES = 64 * 1024;

/** `Retry-After` as seconds from now (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(value: string | string[] | undefined, now: Date): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\s*\d+\s*$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

export function post(
  url: URL,
  target: ResolvedAddress,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  now: () => Date,
): Promise<SendResult> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const payload = Buffer.from(body, 'utf8');
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = lib.request(
      {
        protocol: url.protocol,
        hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': String(payload.length),
          'User-Agent': 'finance-entries-service-webhooks',
          ...headers,
        },
        agent: url.protocol === 'https:' ? agents.https : agents.http,
        lookup: pinnedLookup(target),
        servername: isIP(hostname) ? undefined : hostname,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = typeof res.headers.location === 'string' ? res.headers.location.slice(0, 200) : null;
        finish({ kind: 'answer', status, retryAfterSeconds: retryAfterSeconds(res.headers['retry-after'], now()), location });
        // drain (so the connection can be reused) but never keep much of an answer nobody reads
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_DRAIN_BYTES) res.destroy();
        });
        res.on('error', () => undefined);
      },
    );
    const timer = setTimeout(() => {
      finish({ kind: 'error', message: `no answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ kind: 'error', message: `connection failed: ${err.code ?? err.message}` }));
    req.end(payload);
  });
}
