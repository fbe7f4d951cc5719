import fc from 'fast-check';
import { HTTP_STATUS } from '../../../server/lib/errors.js';
import type { ApiResponse } from '../../support/http.js';
import type { Operation } from './fuzz-operations.js';
import { requestArb, specialRequests, type FuzzRequest } from './fuzz-requests.js';
import type { FuzzWorld } from './fuzz-world.js';

/**
 * Sends `runs` requests to one operation (the special ones first, then fast-check's) with a
 * few in flight at once, and checks every response against CONTRACT §2: never 5xx, errors
 * exactly `{message, code, issues?}` with the status of their code, no stack trace or
 * server path anywhere, success bodies of the documented type. Secrets are checked by the
 * test client's scanner on every response.
 */

export const DEFAULT_SEED = 20_261_122;
export const fuzzSeed = (): number => (process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : DEFAULT_SEED);

export type OpResult = {
  op: string;
  sent: number;
  byStatus: Record<number, number>;
  byKind: Record<string, number>;
  failures: { request: string; problem: string }[];
  ms: number;
};

const CONCURRENCY = 6;
const REQUEST_TIMEOUT_MS = 60_000;
const STACK = [/\bat [^\s()]+ \([^()]*:\d+:\d+\)/, /\bat \/[^\s]+:\d+:\d+/, /node_modules/, /\/work\//];
const ERROR_KEYS = new Set(['message', 'code', 'issues']);

function opSeed(seed: number, opId: string): number {
  let h = seed | 0;
  for (const c of opId) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}

/** The problem with a response, or undefined when it keeps the contract. */
export function responseProblem(op: Operation, res: ApiResponse): string | undefined {
  if (res.status >= 500) return `status ${res.status}: ${res.text.slice(0, 300)}`;
  const stack = STACK.find((re) => re.test(res.text));
  if (stack) return `server internals (${stack}) in body: ${res.text.slice(0, 300)}`;
  const type = res.headers.get('content-type') ?? '';
  if (res.status >= 400) {
    if (!type.includes('application/json')) return `error ${res.status} with content-type "${type}": ${res.text.slice(0, 200)}`;
    const body = res.body as Record<string, unknown>;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return `error body is not an object: ${res.text.slice(0, 200)}`;
    const extra = Object.keys(body).filter((k) => !ERROR_KEYS.has(k));
    if (extra.length) return `error body has extra keys ${extra.join(',')}`;
    if (typeof body.message !== 'string' || !body.message) return 'error body without a message';
    if (HTTP_STATUS[body.code as keyof typeof HTTP_STATUS] !== res.status)
      return `error code ${String(body.code)} with status ${res.status}`;
    if (body.issues !== undefined && !Array.isArray(body.issues)) return 'issues is not an array';
    if (body.issues !== undefined && res.status !== 400) return `issues on a ${res.status}`;
    return undefined;
  }
  if (res.status >= 200 && res.status < 300) {
    const want = { json: 'application/json', csv: 'text/csv', pdf: 'application/pdf', binary: '' }[op.response];
    const documented = op.response !== 'json' && op.responseTypes.some((t) => type.includes(t));
    if (!type.includes(want) && !documented) return `${res.status} with content-type "${type}", documented ${op.response}`;
    if (op.response === 'json' && typeof res.body !== 'object') return `${res.status} body is not JSON: ${res.text.slice(0, 200)}`;
    return undefined;
  }
  return `unexpected status ${res.status}`;
}

function describe(req: FuzzRequest): string {
  const body =
    req.body === undefined
      ? ''
      : typeof req.body === 'string'
        ? req.body.slice(0, 400)
        : req.body instanceof FormData
          ? `FormData(${[...req.body.keys()].join(',')})`
          : `<${req.body.length} bytes>`;
  const headers = Object.fromEntries(
    Object.entries(req.headers).map(([k, v]) => [k, k === 'Authorization' || k === 'X-API-Key' ? '<redacted>' : v.slice(0, 80)]),
  );
  return `[${req.kind}] ${req.method} ${req.url.slice(0, 400)} headers=${JSON.stringify(headers)} body=${body}`;
}

async function send(world: FuzzWorld, req: FuzzRequest): Promise<ApiResponse> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no response within ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS);
  });
  try {
    return await Promise.race([world.api.request(req.method, req.url, { headers: req.headers, rawBody: req.body }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Fuzzes one operation with `runs` requests (seeded by `seed` and the operation id). */
export async function fuzzOperation(world: FuzzWorld, op: Operation, runs: number, seed = fuzzSeed()): Promise<OpResult> {
  const started = Date.now();
  const specials = specialRequests(op, world);
  const random = fc.sample(requestArb(op, world), { seed: opSeed(seed, op.id), numRuns: Math.max(0, runs - specials.length) });
  const requests = [...specials, ...random];
  const result: OpResult = { op: `${op.method} ${op.path}`, sent: 0, byStatus: {}, byKind: {}, failures: [], ms: 0 };
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const req = requests[next++];
      result.sent++;
      result.byKind[req.kind] = (result.byKind[req.kind] ?? 0) + 1;
      try {
        const res = await send(world, req);
        result.byStatus[res.status] = (result.byStatus[res.status] ?? 0) + 1;
        const problem =
          responseProblem(op, res) ??
          (req.expect && (res.status !== req.expect.status || !req.expect.message.test(String(res.body?.message)))
            ? `expected ${req.expect.status} ${req.expect.message}, got ${res.status} ${res.text.slice(0, 200)}`
            : undefined);
        if (problem) result.failures.push({ request: describe(req), problem });
      } catch (err) {
        result.failures.push({ request: describe(req), problem: `request failed: ${(err as Error).message}` });
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  result.ms = Date.now() - started;
  return result;
}

/** The failure message: which operation, the seed to reproduce it, the first few offending requests. */
export function failureReport(result: OpResult, seed = fuzzSeed()): string {
  const lines = result.failures.slice(0, 8).map((f) => `  - ${f.problem}\n    ${f.request}`);
  return `${result.op}: ${result.failures.length} of ${result.sent} responses broke the contract (FUZZ_SEED=${seed})\n${lines.join('\n')}`;
}
