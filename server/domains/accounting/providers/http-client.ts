import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { pinnedLookup, type ResolvedAddress } from '../../../lib/address-guard.js';
import { haltPreviewBefore } from '../../../db/database.js';
import { runtime } from '../../../runtime.js';
import { resolveTarget } from './address-guard.js';
import { ProviderError } from './provider-error.js';

/**
 * Outbound HTTP for provider adapters: one request pinned to the address the guard checked
 * (no second resolution), a per-attempt timeout (ACCOUNTING_PROVIDER_TIMEOUT_MS, 10 s by default),
 * redirects never followed, bodies capped, and at most two retries with exponential backoff for
 * network errors, timeouts and 5xx answers. 4xx answers (429 included) are final: CONTRACT §9.
 */

export type HttpCall = {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers?: Record<string, string>;
  /** JSON body (serialised here) or a pre-encoded form body */
  json?: unknown;
  form?: string;
};

export type HttpAnswer = { status: number; headers: IncomingHttpHeaders; text: string };

export type HttpOptions = {
  /** apply the SSRF guard to the host (generic adapter: yes; operator-configured QuickBooks URLs: no) */
  guard: boolean;
  /** a short label for messages, e.g. "QuickBooks" */
  label: string;
};

const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
export const MAX_RETRIES = 2;

function settings() {
  const { config } = runtime();
  return { timeoutMs: config.ACCOUNTING_PROVIDER_TIMEOUT_MS, retryBaseMs: config.ACCOUNTING_PROVIDER_RETRY_BASE_MS };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** base·2^n, with ±20 % jitter so that callers retrying together spread out. */
const backoffMs = (attempt: number, base: number) => Math.round(base * 2 ** attempt * (0.8 + Math.random() * 0.4));

function once(call: HttpCall, target: ResolvedAddress, url: URL, label: string, timeoutMs: number): Promise<HttpAnswer> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'finance-entries-service', ...call.headers };
  let body: Buffer | undefined;
  if (call.json !== undefined) {
    body = Buffer.from(JSON.stringify(call.json), 'utf8');
    headers['Content-Type'] = 'application/json';
  } else if (call.form !== undefined) {
    body = Buffer.from(call.form, 'utf8');
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }
  if (body) headers['Content-Length'] = String(body.length);
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, answer?: HttpAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(answer!);
    };
    const req = lib.request(
      {
        protocol: url.protocol,
        hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: call.method,
        headers,
        agent: false,
        lookup: pinnedLookup(target),
        servername: isIP(hostname) ? undefined : hostname,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy();
            finish(new ProviderError(`${label} answered with more than ${MAX_RESPONSE_BYTES} bytes`, 'INVALID_RESPONSE'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          finish(null, { status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (err) => finish(new ProviderError(`${label} connection failed: ${err.message}`, 'NETWORK')));
      },
    );
    const timer = setTimeout(() => {
      finish(new ProviderError(`${label} did not answer within ${timeoutMs} ms`, 'TIMEOUT'));
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish(new ProviderError(`${label} connection failed: ${err.code ?? err.message}`, 'NETWORK')),
    );
    req.end(body);
  });
}

/**
 * Sends `call`, retrying network errors, timeouts and 5xx at most twice. Returns the final
 * answer whatever its status (the adapter reads 2xx, and turns 3xx/4xx/5xx into ProviderError);
 * throws ProviderError when no answer came, and AppError 400 when the guard refuses the host.
 */
export async function send(call: HttpCall, opts: HttpOptions): Promise<HttpAnswer> {
  haltPreviewBefore(`contacting ${opts.label}`); // an agent's preview (CONTRACT §20) never reaches the provider
  const url = new URL(call.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProviderError(`${opts.label} URL must be http or https`, 'CONFIGURATION');
  }
  const target = await resolveTarget(url.hostname, { guard: opts.guard });
  const { timeoutMs, retryBaseMs } = settings();
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await once(call, target, url, opts.label, timeoutMs);
      if (answer.status >= 500 && attempt < MAX_RETRIES) {
        await sleep(backoffMs(attempt, retryBaseMs));
        continue;
      }
      return answer;
    } catch (err) {
      const retryable = err instanceof ProviderError && (err.kind === 'NETWORK' || err.kind === 'TIMEOUT');
      if (!retryable || attempt >= MAX_RETRIES) throw err;
      await sleep(backoffMs(attempt, retryBaseMs));
    }
  }
}

/** A JSON body, or ProviderError when the answer is not JSON. */
export function jsonOf(answer: HttpAnswer, label: string): unknown {
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new ProviderError(`${label} answered ${answer.status} with a body that is not JSON`, 'INVALID_RESPONSE', answer.status);
  }
}

/** Redirects are never followed: a 3xx is a failure naming where it pointed. */
export function refuseRedirect(answer: HttpAnswer, label: string): void {
  if (answer.status >= 300 && answer.status < 400) {
    const location = typeof answer.headers.location === 'string' ? ` to ${answer.headers.location.slice(0, 200)}` : '';
    throw new ProviderError(
      `${label} answered with a redirect (${answer.status})${location}; redirects are not followed`,
      'REDIRECT',
      answer.status,
    );
  }
}
